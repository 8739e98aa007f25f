# The results store read straight from SQLite, bypassing the runner, for the
# store's bats files (540, 541, 542): what the file holds, not what the
# runner says it holds.

# sql DB 'SELECT ...': the rows, one per line, columns separated by '|'
sql() {
	python3 - "$1" "$2" <<-'PY'
	import sqlite3, sys
	for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
	    print("|".join("" if v is None else str(v) for v in row))
	PY
}
