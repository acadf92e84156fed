/*
 * Every interleaving of the single-value subscription's atomic phase
 * (StreamCore/Internal/SingleValueSubscription.swift: `Just`, `Optional.Publisher`,
 * `Result.Publisher`): THREADS threads (2 or 3) each request or cancel, and the subscriber may
 * cancel from inside `receive(_:)`. The phase is one atomic byte; whoever moves it out of
 * `pending` owns the subscriber (the slot).
 *
 * Checked at every step (assertions):
 *   - the slot is taken once: by the first request, or by a cancel that came before any;
 *   - the value is delivered at most once, and `.finished` at most once, after it;
 *   - no `.finished` is sent once a cancel (from another thread or from inside `receive(_:)`)
 *     has run its exchange (a cancel after the `.finished` step is a no-op);
 * and when every thread is done: the slot is empty if anyone requested or cancelled, and a
 * request that no cancel preceded was followed by the value and `.finished`.
 *
 * Each atomic block is one atomic operation of the Swift code (compare-exchange or exchange).
 * `check.sh` checks the model for 2 and 3 threads, then that each seeded bug (-DBUG=1..3) is
 * caught.
 */

#ifndef THREADS
#define THREADS 2
#endif
#ifndef BUG
#define BUG 0
#endif

#define PENDING 0
#define SENDING 1
#define TERMINAL 2

byte phase = PENDING;
bool slotFull = true;
byte values = 0;
byte completions = 0;
bool cancelled = false;    /* a cancel's exchange has run */
bool requested = false;
byte done = 0;

/* specialisedCancel: exchange to terminal; only a cancel that found `pending` owns the slot. */
inline cancel() {
  atomic {
    old = phase;
    phase = TERMINAL;
    cancelled = true
  };
#if BUG == 3
  /* Seeded bug: the cancel takes the slot whatever the phase it found. */
  if
  :: slotFull -> slotFull = false
  :: else -> assert(false)
  fi
#else
  if
  :: old == PENDING -> assert(slotFull); slotFull = false
  :: else -> skip
  fi
#endif
}

/* specialisedRequest: compare-exchange pending -> sending, take the slot, send, then
 * compare-exchange sending -> terminal to send `.finished`. */
inline request() {
  requested = true;
#if BUG == 1
  /* Seeded bug: a load, then a store, instead of one compare-exchange. */
  won = (phase == PENDING);
  if
  :: won -> phase = SENDING
  :: else -> skip
  fi;
#else
  atomic {
    if
    :: phase == PENDING -> phase = SENDING; won = true
    :: else -> won = false
    fi
  };
#endif
  if
  :: won ->
     assert(slotFull);
     slotFull = false;
     values++;
     assert(values == 1);
     /* Inside `receive(_:)`: the subscriber may cancel. */
     if
     :: cancel()
     :: skip
     fi;
#if BUG == 2
     /* Seeded bug: `.finished` without the second compare-exchange. */
     atomic { finishes = true; assert(!cancelled) };
#else
     atomic {
       if
       :: phase == SENDING -> phase = TERMINAL; finishes = true; assert(!cancelled)
       :: else -> finishes = false
       fi
     };
#endif
     if
     :: finishes -> completions++; assert(completions == 1)
     :: else -> skip
     fi
  :: else -> skip
  fi
}

proctype Thread() {
  byte old = PENDING;
  bool won = false;
  bool finishes = false;
  if
  :: request()
  :: cancel()
  fi;
  done++
}

proctype Final() {
  (done == THREADS) ->
  assert(!slotFull);
  assert(cancelled || (values == 1 && completions == 1))
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
