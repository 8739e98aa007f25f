# bash completion for runner(1), the sysmeter measurement runner.
#
# Completes commands, options, spec files and directories, run folders,
# probe names (from `runner list`), experiment names (for --filter) and
# --set keys: EXPERIMENT.KEY= for the top-level spec keys and
# EXPERIMENT.params.PARAM= for the parameters a spec file sets.  Experiments
# are read (awk, no python) from the spec files and spec directories given
# on the command line, else from specs/.
#
# Install: copy to /usr/share/bash-completion/completions/runner, or
# `source tools/completion/runner.bash`.  Needs only bash and awk.

_runner_commands="run check list probe-help report rerun merge fleet compare history store models serve nfs-serve"
_runner_options="-o --out --run-id --probe-dir --templates --set --filter --quick
	--seed --peer --nfs --machine --title --author --course --no-report --store --no-store -q --quiet -v --verbose -h --help
	--version"
# Every top-level spec key but quick (which --set refuses).
_runner_spec_keys="name title group probe description params sweep repetitions warmup
	iterations min_sample_time outliers estimate subtract cpu priority timeout predict
	reference chart findings rounds beside discussion"

# _runner_spec_files WORD...: the spec files the words name: *.yaml files as
# given, every *.yaml in a directory given; specs/ when none is given.
_runner_spec_files() {
	local w f any=
	for w in "$@"; do
		if [[ -d $w ]]; then
			any=1
			for f in "${w%/}"/*.yaml; do
				[[ -f $f ]] && printf '%s\n' "$f"
			done
		elif [[ $w == *.yaml && -f $w ]]; then
			any=1
			printf '%s\n' "$w"
		fi
	done
	if [[ -z $any && -d specs ]]; then
		for f in specs/*.yaml; do
			[[ -f $f ]] && printf '%s\n' "$f"
		done
	fi
}

# _runner_spec_info FILE...: one line per spec, "NAME PARAM PARAM ...": its
# top-level name: (else the file stem) and the keys of its params: mapping,
# in block or flow ({a: 1, b: {from: 1, to: 2}}) style.
_runner_spec_info() {
	[[ $# -gt 0 ]] || return 0
	awk '
	function flush() {
		if (file != "") print (name != "" ? name : stem) params
	}
	# the keys of a flow mapping "{k: v, k2: {..}, k3: [..]}" at depth 1
	function flow_keys(s,    i, c, depth, tok, out) {
		depth = 0; tok = ""; out = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "{" || c == "[") { depth++; if (depth == 1) { tok = ""; continue } }
			if (c == "}" || c == "]") { depth--; continue }
			if (depth == 1 && c == ",") { tok = ""; continue }
			if (depth == 1 && c == ":" && tok != "") {
				gsub(/^[ \t]+|[ \t]+$/, "", tok)
				if (tok ~ /^[A-Za-z_][A-Za-z0-9_]*$/) out = out " " tok
				tok = "\001"	# ignore the rest until the next comma
				continue
			}
			if (depth == 1 && tok != "\001") tok = tok c
		}
		return out
	}
	FNR == 1 {
		flush()
		file = FILENAME; stem = FILENAME
		sub(/.*\//, "", stem); sub(/\.yaml$/, "", stem)
		name = ""; params = ""; inparams = 0; indent = -1
	}
	/^[ \t]*(#|$)/ { next }
	/^[^ \t]/ {
		inparams = 0
		if ($0 ~ /^name:[ \t]*[^ \t#]/) {
			v = $0; sub(/^name:[ \t]*/, "", v); sub(/[ \t]*(#.*)?$/, "", v)
			gsub(/^["\047]|["\047]$/, "", v)
			name = v
		} else if ($0 ~ /^params:[ \t]*\{/) {
			v = $0; sub(/^params:[ \t]*/, "", v)
			params = params flow_keys(v)
		} else if ($0 ~ /^params:[ \t]*(#.*)?$/) {
			inparams = 1; indent = -1
		}
		next
	}
	inparams {
		match($0, /^[ \t]+/)
		if (indent < 0) indent = RLENGTH
		if (RLENGTH == indent && $0 ~ /^[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*:/) {
			k = $0; sub(/^[ \t]+/, "", k); sub(/[ \t]*:.*/, "", k)
			params = params " " k
		}
	}
	END { flush() }
	' "$@" 2>/dev/null
}

# _runner_probes RUNNER [--probe-dir DIRS]: probe names from `runner list`:
# the lines that do not start with a blank, first word, broken ones left out.
_runner_probes() {
	"$@" list 2>/dev/null | awk '/^[^ \t]/ && !/\(broken: / { print $1 }'
}

_runner() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= i w
	local -a specwords=() pdir=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# --opt=value split by COMP_WORDBREAKS: "--set" "=" "cur"
	if [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $cur == = ]]; then
		cur=
	fi

	# the command, the spec words and --probe-dir on the line (also those
	# after the cursor: `runner --set <TAB> specs/x.yaml`)
	for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do
		((i == COMP_CWORD)) && continue
		w=${COMP_WORDS[i]}
		case $w in
		-o | --out | --run-id | --probe-dir | --templates | --set | --filter | --seed | \
			--peer | --nfs | --machine | --format | --threshold | --fail-on | --json | \
			--where | --host | --since | --store | --chart | --html | --specs)
			[[ $w == --probe-dir ]] && pdir=(--probe-dir "${COMP_WORDS[i + 1]}")
			((i + 1 == COMP_CWORD)) || ((i++))
			;;
		-*) ;;
		*)
			if [[ -z $cmd ]] && [[ " $_runner_commands " == *" $w "* ]]; then
				cmd=$w
			else
				[[ -z $cmd ]] && cmd=run
				specwords+=("$w")
			fi
			;;
		esac
	done

	case $prev in
	-o | --out | --probe-dir | --templates | --html | --specs)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -d -- "$cur"))
		return 0
		;;
	--run-id | --seed | --peer | --threshold | --where | --host | --since)
		return 0
		;;
	--nfs)	# or nfs://HOST/EXPORT, which is the user's to type
		COMPREPLY=($(compgen -W "netns" -- "$cur"))
		return 0
		;;
	--fail-on)
		COMPREPLY=($(compgen -W "regression change never" -- "$cur"))
		return 0
		;;
	--json | --machine | --store | --chart)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0
		;;
	--format)
		COMPREPLY=($(compgen -W "md tex pdf html md,tex md,pdf tex,pdf md,html md,tex,pdf md,tex,pdf,html" -- "$cur"))
		return 0
		;;
	--filter)
		local names
		names=$(_runner_spec_info $(_runner_spec_files "${specwords[@]}") | awk '{ print $1 }')
		COMPREPLY=($(compgen -W "$names" -- "$cur"))
		return 0
		;;
	--set)
		local keys= line exp p
		while read -r exp line; do
			[[ -n $exp ]] || continue
			for w in $_runner_spec_keys; do
				keys+=" $exp.$w="
			done
			for p in $line; do
				keys+=" $exp.params.$p="
			done
		done < <(_runner_spec_info $(_runner_spec_files "${specwords[@]}"))
		COMPREPLY=($(compgen -W "$keys" -- "$cur"))
		compopt -o nospace 2>/dev/null
		return 0
		;;
	esac

	if [[ $cur == -* ]]; then
		local opts=$_runner_options
		case $cmd in
		report) opts="--format --templates -v --verbose -h --help" ;;
		rerun) opts="--force $_runner_options" ;;
		list | probe-help) opts="--probe-dir -h --help" ;;
		compare) opts="--threshold --fail-on --json --baseline-store --store -h --help" ;;
		history) opts="--where --host --since --store -o --out --chart --fail-on --html -v --verbose -h --help" ;;
		store) opts="--store -o --out -q --quiet -h --help" ;;
		models) opts="--specs --machine --json --probe-dir -h --help" ;;
		merge) opts="-o --out --run-id --templates --title --author --course --no-report --hosts --hosts-file --store -q --quiet -v --verbose -h --help" ;;
		fleet) opts="--ansible --slurm --nodes --nodelist --partition --shared-dir --time-limit --pairs -o --out --run-id --probe-dir --templates --set --filter --quick --seed --title --author --course --no-report --store --no-store -q --quiet -v --verbose -h --help" ;;
		esac
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return 0
	fi

	case $cmd in
	probe-help)
		((${#specwords[@]} == 0)) &&
			COMPREPLY=($(compgen -W "$(_runner_probes "${COMP_WORDS[0]}" "${pdir[@]}")" -- "$cur"))
		;;
	list | history) ;;
	store)
		# import|check first, then run folders
		if [[ ${COMP_WORDS[COMP_CWORD-1]} == store ]]; then
			COMPREPLY=($(compgen -W "import check" -- "$cur"))
		else
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -d -- "$cur"))
		fi
		;;
	report | rerun | compare | models)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -d -- "$cur"))
		;;
	*)
		# spec files and directories; the commands too before anything else
		compopt -o filenames 2>/dev/null
		[[ -z $cmd ]] && COMPREPLY=($(compgen -W "$_runner_commands" -- "$cur"))
		COMPREPLY+=($(compgen -d -- "$cur") $(compgen -f -X '!*.yaml' -- "$cur"))
		;;
	esac
	return 0
}

complete -F _runner runner
