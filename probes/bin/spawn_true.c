/*
 * spawn_true - the program task_create's posix_spawn methods start: it does
 * nothing and exits 0, so that what is timed is the creation of a process
 * and the exec of a program, not the program.  Kept as small as the build
 * allows (the Makefile links it dynamically, so a run of it includes the
 * dynamic loader mapping libc: see the task_create probe's comment).
 */
int main(void)
{
	return 0;
}
