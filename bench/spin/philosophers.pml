/*
 * Dining philosophers at the granularity of Racetrack's core/philo model
 * in its lock-level preset (untimed, one meal): one kernel step per
 * Promela step. Forks are kernel mutexes with a holder and FIFO waiters:
 * a Lock on a free fork takes it in one step; on a held fork the thread
 * queues (one step) and, once the holder's Unlock hands the fork over, runs
 * an "acquired" step. A philosopher: think, take first fork, take second
 * fork, eat, put second down, put first down, leave.
 *
 *   N      philosophers (default 5)
 *   FIXED  1: lower-numbered fork first (global lock order); 0: left first
 *
 * Deadlock freedom is SPIN's check for invalid end states (-DSAFETY) plus
 * the assertion in lock that no blocking lock closes a wait-for cycle.
 */
#ifndef N
#define N 5
#endif
#ifndef FIXED
#define FIXED 0
#endif
#define NONE 255

byte holder[N];   /* NONE or the philosopher holding the fork */
byte waiter[N];   /* NONE or the one philosopher queued for it (two share a fork) */
byte blockedOn[N]; /* by philosopher: the fork it is queued for, or NONE */

/* A blocking statement inside atomic ends the atomic step: queueing is
 * one step and "holder[m] == me" (handed over) is the acquired step.
 * Racetrack's no-deadlock includes its kernel's check at every blocking
 * lock: no cycle in the wait-for graph through the thread that blocks. */
inline lock(m) {
	atomic {
		if
		:: holder[m] == NONE -> holder[m] = me
		:: else ->
			waiter[m] = me; blockedOn[me] = m;
			t = holder[m]; k = 0;
			do
			:: t != me && blockedOn[t] != NONE && k < N -> t = holder[blockedOn[t]]; k++
			:: else -> break
			od;
			assert(t != me);
			t = 0; k = 0;
			holder[m] == me; blockedOn[me] = NONE
		fi
	}
}

inline unlock(m) {
	atomic {
		if
		:: waiter[m] != NONE -> holder[m] = waiter[m]; waiter[m] = NONE
		:: else -> holder[m] = NONE
		fi
	}
}

proctype phil(byte me; byte first; byte second) {
	byte t, k;
	skip;            /* think */
	lock(first);
	lock(second);
	skip;            /* eat */
	unlock(second);
	unlock(first);
	skip             /* leave */
}

init {
	byte i;
	atomic {
		i = 0;
		do
		:: i < N -> holder[i] = NONE; waiter[i] = NONE; blockedOn[i] = NONE; i++
		:: else -> break
		od;
		i = 0;
		do
		:: i < N ->
			if
			:: FIXED && i == N - 1 -> run phil(i, 0, i)
			:: else -> run phil(i, i, (i + 1) % N)
			fi;
			i++
		:: else -> break
		od
	}
}
