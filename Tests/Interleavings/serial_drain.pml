/*
 * Every interleaving of the serial drain (StreamCore/Internal/SerialDrain.swift), used as the
 * queueing operators use it (DeliveryQueue, DeliveryOutlet, Record, buffer): THREADS threads
 * (2 or 3) each add OPS units of work under the lock and claim the drain; the thread whose claim
 * succeeds runs the loop: under the lock take the next unit, or release the drain in the same
 * critical section that found nothing; outside it, deliver. Inside a delivery the subscriber may
 * add work again (a request from inside `receive(_:)`), once per thread.
 *
 * Checked at every step (assertions):
 *   - no two threads deliver at once, and no delivery runs inside another (a request from
 *     inside `receive(_:)` never delivers from inside that call);
 * and when every thread is done: no work is left undelivered and the drain is free.
 *
 * Each line mirrors a line of the Swift code: `lock` is the operator's lock, `claimed` the
 * SerialDrain's flag, `work` the queue. `check.sh` checks the model for 2 and 3 threads, then
 * that each seeded bug (-DBUG=1..3) is caught.
 */

#ifndef THREADS
#define THREADS 2
#endif
#ifndef OPS
#define OPS 2
#endif
#ifndef BUG
#define BUG 0
#endif

bool lock = false;
bool claimed = false;
byte work = 0;          /* units added, not yet taken by the drain */
byte added = 0;
byte delivered = 0;
byte delivering = 0;    /* threads inside a delivery */
byte done = 0;

inline acquire() { atomic { !lock -> lock = true } }
inline unlock() { lock = false }

/* Adds one unit under the lock and claims the drain: `mine` says whether this thread runs it. */
inline add(mine) {
  acquire();
  work++;
  added++;
  if
  :: !claimed -> claimed = true; mine = true
  :: else -> mine = false
#if BUG == 2
  /* Seeded bug: a claim that succeeds although another thread holds the drain. */
  :: claimed -> mine = true
#endif
  fi;
  unlock()
}

/* SerialDrain.run: the loop of the thread whose claim succeeded. */
inline drain() {
  do
  :: acquire();
     if
     :: work > 0 -> work--; step = true
     :: else ->
#if BUG == 1
        /* Seeded bug: the drain is released in a later critical section than the one that
         * found nothing, so work added in between is left without a deliverer. */
        unlock();
        acquire();
#endif
        claimed = false;
        step = false
     fi;
     unlock();
     if
     :: step ->
        /* perform: deliver outside the lock. */
        delivering++;
        assert(delivering == 1);
        delivered++;
        /* Inside the subscriber: add work again (a request from inside `receive(_:)`), once. */
        if
        :: !nestedDone ->
           nestedDone = true;
           add(nestedMine);
           /* The claim fails (this thread holds the drain): the loop takes the work later. */
           assert(!nestedMine);
#if BUG == 3
           /* Seeded bug: a request from inside delivers at once, from inside the call. */
           acquire();
           if
           :: work > 0 -> work--; nestedStep = true
           :: else -> nestedStep = false
           fi;
           unlock();
           if
           :: nestedStep -> delivering++; assert(delivering == 1); delivered++; delivering--
           :: else -> skip
           fi;
#endif
        :: skip
        fi;
        delivering--
     :: else -> break
     fi
  od
}

proctype Thread() {
  byte ops = 0;
  bool mine = false;
  bool nestedMine = false;
  bool nestedDone = false;
  bool nestedStep = false;
  bool step = false;
  do
  :: ops < OPS ->
     ops++;
     add(mine);
     if
     :: mine -> drain()
     :: else -> skip
     fi
  :: else -> break
  od;
  done++
}

/* When every thread is done, the work was all delivered and no one holds the drain. */
proctype Final() {
  (done == THREADS) ->
  assert(work == 0 && !claimed && delivered == added)
}

init {
  atomic {
    byte i = 0;
    do
    :: i < THREADS -> run Thread(); i++
    :: else -> break
    od;
    run Final()
  }
}
