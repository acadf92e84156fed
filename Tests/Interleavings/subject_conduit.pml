/*
 * Every interleaving of a subject's subscription (SubjectConduit) and its delivery gate
 * (DeliveryGate), for THREADS threads (2 or 3), each making OPS calls: send, request, cancel
 * or the completion. Inside the subscriber a thread may request one more, or send again
 * (one level deep), and the subscriber returns a demand of 0 or 1.
 *
 * Checked at every step (assertions):
 *   - no two threads are inside the subscriber at once (a thread's own nested calls are allowed);
 *   - nothing reaches the subscriber after its completion;
 *   - no value reaches it beyond the demand it asked for;
 *   - a request never delivers from inside a delivery to the same subscriber (no nesting);
 * and when every thread is done: no live subscription is left owing its current value.
 *
 * Each line mirrors a line of the Swift code; `lock` is the conduit's lock, `gate` and `holder`
 * the gate's. Run `Tests/Interleavings/check.sh`: it checks the model for 2 and 3 threads, then
 * checks that each seeded bug (-DBUG=1..4) is caught.
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

/* The conduit's state, under `lock`. */
bool lock = false;
bool live = true;       /* `core != nil` */
byte demand = 0;
bool missed = true;     /* a current-value subject's subscriber starts owed its value */
bool deferred = false;
bool finished = false;  /* set with `live = false` by the completion, read after the gate */

/* The gate. */
bool gate = false;
byte holder = 0;        /* the holding thread, 0 when free */

/* What the subscriber sees. */
byte inside = 0;        /* the thread inside it, 0 when none */
byte depth[THREADS + 1];
bool completed = false;
byte received = 0;
byte granted = 0;       /* the demand it asked for, in all */
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

/* A value reaches the subscriber; it may request or return one more. */
inline receiveValue(me, nestedSend) {
  enter(me);
  assert(!completed);
  received++;
  assert(received <= granted);
  if
  :: more = 0
  :: more = 1; granted++
  fi;
  if
  :: skip
  :: requestInside(me)
  :: nestedSend == 1 -> nestedOffer(me)
  fi;
  leave(me)
}

/* A value that reached the subscriber from a nested send: it may only request. */
inline receiveNested(me) {
  enter(me);
  assert(!completed);
  received++;
  assert(received <= granted);
  if
  :: skip
  :: requestInside(me)
  fi;
  leave(me)
}

/* A value that reaches the subscriber where it can do nothing more (seeded bug 3). */
inline receiveLeaf(me) {
  enter(me);
  assert(!completed);
  received++;
  assert(received <= granted);
  leave(me)
}

/* `gate.pass(as: me)` around a delivery: sets `reentrant` when the thread holds it already. */
inline passGate(me) {
#if BUG == 2
  /* seeded: takes any holder for itself */
  if
  :: holder != 0 -> reentrant = true
  :: else -> acquire(gate); holder = me; reentrant = false
  fi
#else
  if
  :: holder == me -> reentrant = true
  :: else -> acquire(gate); holder = me; reentrant = false
  fi
#endif
}

inline leaveGate(me) {
  if
  :: !reentrant -> holder = 0; release(gate)
  :: else -> skip
  fi
}

/* `deliver(_:to:from:limited:)`, after the first value was taken from the demand. */
inline deliver(me, nestedSend) {
  passGate(me);
#if BUG == 1
  /* seeded: no check that the completion went first */
  receiveValue(me, nestedSend);
#else
  if
  :: finished -> skip
  :: else -> receiveValue(me, nestedSend)
  fi;
#endif
  /* the loop: add the returned demand; deliver what a request from inside left to it */
  do
  :: acquire(lock);
     if
     :: !live -> release(lock); break
     :: else -> demand = demand + more; more = 0;
        if
        :: !deferred -> release(lock); break
        :: else -> deferred = false;
           if
           :: missed && demand > 0 -> missed = false; demand--; release(lock);
              receiveNested(me)
           :: else -> release(lock); break
           fi
        fi
     fi
  od;
  leaveGate(me)
}

/* `specialisedOffer`, for a nested send from inside the subscriber. */
inline nestedOffer(me) {
  acquire(lock);
  if
  :: !live || demand == 0 -> missed = true; release(lock)
  :: else -> missed = false; demand--; release(lock);
     /* the thread holds the gate: delivered at once, re-entrantly */
     assert(holder == me);
     receiveNested(me)
  fi
}

/* `specialisedRequest` from inside the subscriber. */
inline requestInside(me) {
  acquire(lock);
  if
  :: !live -> release(lock)
  :: else -> demand++; granted++;
     if
     :: !missed -> release(lock)
#if BUG == 3
     /* seeded: delivers the owed value from inside the call */
     :: else -> missed = false; demand--; release(lock);
        assert(depth[me] == 0);
        receiveLeaf(me)
#else
     :: holder == me -> deferred = true; release(lock)
#endif
     fi
  fi
}

proctype Thread(byte me) {
  bool reentrant;
  byte more = 0;
  byte ops = 0;
  do
  :: ops == OPS -> break
  :: ops < OPS -> ops++;
     if
     :: /* send */
        acquire(lock);
        if
        :: !live || demand == 0 -> missed = true; release(lock)
        :: else -> missed = false; demand--; release(lock); deliver(me, 1)
        fi
     :: /* request(.max(1)) from outside the subscriber */
        acquire(lock);
        if
        :: !live -> release(lock)
        :: else -> demand++; granted++;
           if
           :: missed && holder != me ->
              missed = false; demand--; release(lock);
              assert(depth[me] == 0);
              deliver(me, 0)
           :: else -> release(lock)
           fi
        fi
     :: /* cancel */
        acquire(lock); live = false; release(lock)
     :: /* the completion */
        acquire(lock);
        if
        :: !live -> release(lock)
        :: else ->
#if BUG == 4
           /* seeded: the completion doesn't wait at the gate */
           live = false; finished = true; release(lock);
           enter(me); completed = true; leave(me)
#else
           live = false; finished = true; release(lock);
           passGate(me); enter(me); completed = true; leave(me); leaveGate(me)
#endif
        fi
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
  /* every value a request left to a delivery was delivered, unless the subscription ended */
  assert(!(live && deferred))
}
