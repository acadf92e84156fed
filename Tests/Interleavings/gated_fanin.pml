/*
 * Every interleaving of an operator with several inputs that calls its subscriber through a
 * delivery gate (MergeStorage; flatMap, switchToLatest, combineLatest and zip follow the same
 * rules), for THREADS threads (2 or 3), each making OPS calls: an upstream's value, a request
 * from outside the subscriber, the last upstream's `.finished`, or cancel. Inside the
 * subscriber a thread may request one more (booked, left to the outermost pass), or, once, send a
 * value again (one level deep); the subscriber returns a demand of 0 or 1.
 *
 * Checked at every step (assertions):
 *   - no two threads are inside the subscriber at once (a thread's own nested calls are allowed);
 *   - nothing reaches the subscriber after its completion, nor beyond the demand it asked for;
 *   - values reach it in the order their senders decided, inside the gate (`seq`);
 *   - the drain runs only from the outermost pass, never from inside the subscriber, so a
 *     request from inside `receive(_:)` never delivers from inside that call;
 * and when every thread is done: no value waits while there is demand for it, and no
 * `.finished` waits behind nothing.
 *
 * Each line mirrors a line of the Swift code: `lock` is the storage's lock, `gate` and `holder`
 * the gate's, `nestedWork` the flag the gate guards. `Tests/Interleavings/check.sh` checks the
 * model for 2 and 3 threads, then checks that each seeded bug (-DBUG=1..4) is caught.
 */

#ifndef THREADS
#define THREADS 2
#endif
/* Three threads of two calls each is more than spin can hold here (20 GB and counting): with
 * three threads, each makes one call (with what it does inside the subscriber). */
#ifndef OPS
#if THREADS > 2
#define OPS 1
#else
#define OPS 2
#endif
#endif
#ifndef BUG
#define BUG 0
#endif

#define ACTIVE 0
#define FINISHING 1
#define TERMINAL 2
#define QN 8

/* MergeState, under `lock`. */
bool lock = false;
byte phase = ACTIVE;
byte demand = 0;
byte q[QN];             /* the queued values' sequence numbers, oldest at `qhead` */
byte qhead = 0;
byte qcount = 0;
byte nextSeq = 0;       /* a value's place in line, given when its sender decides */

/* The gate, and what it guards. */
bool gate = false;
byte holder = 0;        /* the holding thread, 0 when free */
bool nestedWork = false;

/* What the subscriber sees. */
byte inside = 0;        /* the thread inside it, 0 when none */
byte depth[THREADS + 1];
bool completed = false;
byte received = 0;
byte granted = 0;       /* the demand it asked for, in all */
byte lastSeen = 0;
byte done = 0;

inline acquire(l) { atomic { !l -> l = true } }
inline release(l) { l = false }

inline enter(me) {
  assert(inside == 0 || inside == me);
  inside = me;
  depth[me]++
}

inline leave(me) {
  depth[me]--;
  if
  :: depth[me] == 0 -> inside = 0
  :: else -> skip
  fi
}

/* `gate.enter(as: me)`: `outer` is the body's `outermost`. */
inline passGate(me) {
  if
  :: holder == me -> outer = false
  :: else -> acquire(gate); holder = me; outer = true
  fi
}

inline leaveGate(me) {
  if
  :: outer -> holder = 0; release(gate)
  :: else -> skip
  fi
}

inline enqueue(s) {
  q[(qhead + qcount) % QN] = s;
  qcount++
}

/* What the subscriber does with a value: checks it, then may request from inside. */
inline see(me, s) {
  assert(!completed);
  received++;
  assert(received <= granted);
  assert(s > lastSeen);
  lastSeen = s
}

/* `request(_:)` from inside the subscriber: books the demand, leaves the rest to the outermost
 * pass. */
inline requestInside(me) {
  acquire(lock);
  if
  :: phase == TERMINAL -> release(lock)
  :: else -> demand++; granted++;
#if BUG == 1
     /* seeded: delivers a queued value from inside the call */
     if
     :: qcount > 0 -> qhead = (qhead + 1) % QN; qcount--; demand--; release(lock);
        assert(depth[me] == 0)
     :: else -> release(lock)
     fi
#else
     release(lock);
#endif
     nestedWork = true
  fi
}

/* A value sent from inside the subscriber: the thread holds the gate, so the pass is nested. */
inline nestedSend(me) {
  assert(holder == me);
  acquire(lock);
  if
  :: phase != ACTIVE -> release(lock)
  :: else -> nextSeq++; ns = nextSeq;
     if
     :: demand > 0 && qcount == 0 -> demand--; release(lock);
        enter(me); see(me, ns);
        if
        :: skip
        :: requestInside(me)
        fi;
        leave(me);
        /* returns 0 or 1 */
        if
        :: skip
        :: acquire(lock);
           if
           :: phase != TERMINAL -> demand++; granted++
           :: else -> skip
           fi;
           release(lock)
        fi;
        nestedWork = true
     :: else -> enqueue(ns); nestedWork = true; release(lock)
     fi
  fi
}

/* A value reaches the subscriber (not nested): it may request, or send again. */
inline receive(me, s) {
  enter(me);
  see(me, s);
  if
  :: skip
  :: requestInside(me)
  :: nests > 0 -> nests--; nestedSend(me)
  fi;
  if
  :: more = 0
  :: more = 1; granted++
  fi;
  leave(me)
}

/* `drain()`: only from the outermost pass. */
inline drain(me) {
  nestedWork = false;
  do
  :: acquire(lock);
     if
     :: demand > 0 && qcount > 0 ->
        s = q[qhead]; qhead = (qhead + 1) % QN; qcount--; demand--; release(lock);
        assert(depth[me] == 0);
        receive(me, s);
        acquire(lock);
        if
        :: phase != TERMINAL -> demand = demand + more
        :: else -> skip
        fi;
        release(lock)
     :: demand == 0 && qcount > 0 -> release(lock); break
     :: qcount == 0 && phase == FINISHING -> phase = TERMINAL; release(lock);
        assert(depth[me] == 0);
        enter(me); assert(!completed); completed = true; leave(me)
     :: qcount == 0 && phase != FINISHING -> release(lock); break
     fi
  od
}

/* `deliverPending()`: `gate.drain(as: me, drain) { nestedWork = true }`. */
inline deliverPending(me) {
  passGate(me);
  if
  :: outer -> drain(me)
  :: else -> nestedWork = true
  fi;
  leaveGate(me)
}

/* The decision `state.receive(_:from:)` makes under the lock: `go` when the caller delivers. */
inline decide() {
  go = false;
  acquire(lock);
  if
  :: phase != ACTIVE -> release(lock)
  :: else -> nextSeq++; s = nextSeq;
     if
     :: demand > 0 && qcount == 0 -> demand--; go = true; release(lock)
     :: else -> enqueue(s); release(lock)
     fi
  fi
}

/* `receive(_:from:)`: an upstream's value. */
inline send(me) {
#if BUG == 2
  /* seeded: decides before passing the gate */
  decide();
  passGate(me);
#else
  passGate(me);
  decide();
#endif
  if
  :: go -> receive(me, s);
     acquire(lock);
     if
     :: phase != TERMINAL -> demand = demand + more
     :: else -> skip
     fi;
     release(lock);
     nestedWork = true
  :: else -> skip
  fi;
#if BUG == 4
  /* seeded: the outermost pass never drains after its own delivery */
  skip;
#else
  if
  :: outer && nestedWork -> drain(me)
  :: else -> skip
  fi;
#endif
  leaveGate(me)
}

proctype Thread(byte me) {
  bool outer;
  bool go;
  byte more = 0;
  byte s = 0;
  byte ns = 0;
  bool delivers;
  byte nests = 1;       /* values this thread may send from inside the subscriber */
  byte ops = 0;
  do
  :: ops == OPS -> break
  :: ops < OPS -> ops++;
     if
     :: send(me)
     :: /* request(.max(1)) from outside the subscriber */
        acquire(lock);
        if
        :: phase == TERMINAL -> release(lock)
        :: else -> demand++; granted++;
#if BUG == 3
           /* seeded: a request from outside never drains what waits */
           delivers = false;
#else
           delivers = (qcount > 0 || phase == FINISHING);
#endif
           release(lock);
           if
           :: delivers -> deliverPending(me)
           :: else -> skip
           fi
        fi
     :: /* the last upstream's `.finished` */
        acquire(lock);
        if
        :: phase == ACTIVE -> phase = FINISHING; release(lock); deliverPending(me)
        :: else -> release(lock)
        fi
     :: /* cancel */
        acquire(lock); phase = TERMINAL; qcount = 0; release(lock)
     fi
  od;
  done++
}

init {
  byte t;
  atomic {
    for (t : 1 .. THREADS) { run Thread(t) }
  }
  (done == THREADS);
  /* nothing waits while there is demand for it, and `.finished` doesn't wait behind nothing */
  assert(!(phase != TERMINAL && demand > 0 && qcount > 0));
  assert(!(phase == FINISHING && qcount == 0))
}
