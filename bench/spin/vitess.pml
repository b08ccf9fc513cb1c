/*
 * Vitess message manager, lock-level preset of Racetrack's core/vitess
 * model (untimed, delivery off: C clients each Subscribe and unsubscribe
 * ITER times, the poller ticks ITER times, the binlog produces ITER row
 * events of one row, Close runs once), one kernel step per Promela step:
 * each atomic block below is one Handle step of the Go model, ending in
 * its kernel action (lock, unlock, exit, local work).
 *
 * Mutexes are kernel mutexes with a holder and FIFO waiters, as in
 * core/sim: a lock on a free mutex takes it in the step; on a held one the
 * thread queues (the step ends there) and, once an unlock hands it over,
 * runs an "acquired" step (the guard holder[m] == me).
 *
 *   C      clients (default 3)
 *   ITER   cycles per client, poller ticks and row events (default 2)
 *   FIXED  0: v13 (streamMu, the deadlock of #9936); 1: after PR #10132
 *
 * Deadlock freedom is SPIN's check for invalid end states (-DSAFETY) plus
 * the assertion in LOCK that no blocking lock closes a wait-for cycle.
 */
#ifndef C
#define C 3
#endif
#ifndef ITER
#define ITER 2
#endif
#ifndef FIXED
#define FIXED 0
#endif

#define NONE  255
#define MU     0
#define STREAM 1   /* streamMu (v13) or cacheManagementMu (fixed) */
#define TICKS  2   /* pollerTicks: the timer's mutex and stop channel */
#define NT     (C + 3)

byte holder[3];
byte blockedOn[NT];   /* by thread: the mutex it is queued for, or NONE */
byte queue[3 * NT];   /* FIFO waiters of mutex m at queue[m*NT ..] */
byte qlen[3];

bool isOpen = 1;
bool streaming;
bool subscribed[C];
byte recv;            /* len(receivers) */
byte ticksLeft = ITER;
bool pollerStopped;
byte eventsLeft = ITER;
bool evCtxDone;
bool vsBusy;          /* the vstream is inside a callback */

/* Racetrack's no-deadlock includes its kernel's check at every blocking
 * lock: a cycle in the wait-for graph through the thread that blocks. */
inline LOCK(m) {
	if
	:: holder[m] == NONE -> holder[m] = me
	:: else ->
		queue[m * NT + qlen[m]] = me; qlen[m]++; blockedOn[me] = m;
		t = holder[m]; k = 0;
		do
		:: t != me && blockedOn[t] != NONE && k < NT -> t = holder[blockedOn[t]]; k++
		:: else -> break
		od;
		assert(t != me);
		t = 0; k = 0;
		holder[m] == me; blockedOn[me] = NONE
	fi
}

inline UNLOCK(m) {
	if
	:: qlen[m] > 0 ->
		holder[m] = queue[m * NT];
		j = 0;
		do
		:: j + 1 < qlen[m] -> queue[m * NT + j] = queue[m * NT + j + 1]; j++
		:: else -> break
		od;
		queue[m * NT + qlen[m] - 1] = 0;
		qlen[m]--;
		j = 0
	:: else -> holder[m] = NONE
	fi
}

inline stopVStream() {
	streaming = 0;
	if
	:: vsBusy -> evCtxDone = 1
	:: else
	fi
}

inline unsub() {
	if
	:: subscribed[i] -> subscribed[i] = 0; recv--
	:: else
	fi
}

proctype client(byte me; byte i) {
	byte j, t, k, cycles;
sub:
	atomic { LOCK(MU) }
	atomic {
		if
		:: !isOpen -> UNLOCK(MU); goto leave
		:: isOpen && recv == 0 && !FIXED -> LOCK(STREAM)
		:: isOpen && recv == 0 && FIXED -> streaming = 1; subscribed[i] = 1; recv++; UNLOCK(MU); goto unsubscribe
		:: isOpen && recv > 0 -> subscribed[i] = 1; recv++; UNLOCK(MU); goto unsubscribe
		fi
	}
	atomic { streaming = 1; UNLOCK(STREAM) }
	atomic { subscribed[i] = 1; recv++; UNLOCK(MU) }
unsubscribe:
	atomic { LOCK(MU) }
	atomic {
		unsub();
		if
		:: recv > 0 -> goto endCycle
		:: recv == 0 && !FIXED -> LOCK(STREAM)
		:: recv == 0 && FIXED -> stopVStream(); goto endCycle
		fi
	}
	atomic { stopVStream(); UNLOCK(STREAM) }
endCycle:
	atomic {
		cycles++;
		UNLOCK(MU);
		if
		:: cycles >= ITER -> goto leave
		:: else -> goto sub
		fi
	}
leave:
	skip
}

proctype poller(byte me) {
	byte j, t, k;
tick:
	atomic {
		if
		:: pollerStopped -> goto done
		:: else -> LOCK(TICKS)
		fi
	}
	atomic {
		if
		:: pollerStopped -> UNLOCK(TICKS); goto stopped
		:: !pollerStopped && FIXED -> LOCK(STREAM)
		:: !pollerStopped && !FIXED -> LOCK(MU)
		fi
	}
	if
	:: FIXED ->
		atomic { LOCK(MU) }
		atomic { UNLOCK(MU) }        /* no receivers, or cache.Add(rows): mu.Unlock() */
	:: else ->
		atomic {
			if
			:: recv == 0 -> UNLOCK(MU); goto ret
			:: else -> UNLOCK(MU)       /* the gap: mu released before streamMu */
			fi
		}
		atomic { LOCK(STREAM) }
		atomic { LOCK(MU) }
		atomic { UNLOCK(MU) }        /* cache.Add(rows); mu.Unlock() */
	fi;
	atomic { UNLOCK(STREAM) }
ret:
	atomic {
		ticksLeft--;
		UNLOCK(TICKS);
		if
		:: ticksLeft == 0 -> goto stopped
		:: else -> goto tick
		fi
	}
stopped:
	skip;
done:
	skip
}

proctype vstream(byte me) {
	byte j, t, k;
event:
	atomic {
		if
		:: !isOpen || eventsLeft == 0 -> goto done
		:: else ->
			eventsLeft--;
			if
			:: !streaming -> goto event   /* one row committed; no vstream runs */
			:: else -> evCtxDone = 0; vsBusy = 1; LOCK(STREAM)
			fi
		fi
	}
	atomic {
		if
		:: evCtxDone -> evCtxDone = 0; vsBusy = 0; UNLOCK(STREAM); goto event
		:: else -> LOCK(MU)            /* Add: mu.Lock() */
		fi
	}
	atomic { UNLOCK(MU) }              /* Add: cache.Add(row); mu.Unlock() */
	atomic { evCtxDone = 0; vsBusy = 0; UNLOCK(STREAM); goto event }
done:
	skip
}

proctype closer(byte me) {
	byte j, t, k, i;
	atomic { LOCK(TICKS) }             /* pollerTicks.Stop() */
	atomic { pollerStopped = 1; UNLOCK(TICKS) }
	atomic { LOCK(MU) }
	atomic {
		isOpen = 0;
		i = 0;
		do
		:: i < C -> subscribed[i] = 0; i++
		:: else -> break
		od;
		i = 0;
		recv = 0;
		if
		:: FIXED -> stopVStream(); UNLOCK(MU); goto wait
		:: else -> LOCK(STREAM)
		fi
	}
	atomic { stopVStream(); UNLOCK(STREAM) }
	atomic { UNLOCK(MU) }
wait:
	skip                               /* wg.Wait(): untimed, returns */
}

init {
	byte k;
	atomic {
		holder[MU] = NONE; holder[STREAM] = NONE; holder[TICKS] = NONE;
		k = 0;
		do
		:: k < NT -> blockedOn[k] = NONE; k++
		:: else -> break
		od;
		run poller(0);
		run vstream(1);
		run closer(2);
		k = 0;
		do
		:: k < C -> run client(3 + k, k); k++
		:: else -> break
		od;
		k = 0
	}
}
