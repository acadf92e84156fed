// The machine-read lists of expected differences. See Expectations.swift and INTENDED.md.

/// Deliberate differences; each id has a section in Differential/INTENDED.md.
public let intendedDifferences: [Expectation] = [
  .init(
    "I1",
    ["*"],
    "L ",
    .lifecycle,
    intended: true,
    "StreamKit releases the subscriber, the upstream subscription and the closures once a subscription has ended",
    test: { d, _ in
      d.signature.contains("released by StreamKit only")
        && !d.signature.contains("released by OpenCombine only")
        && (d.signature.hasSuffix("(completed)") || d.signature.hasSuffix("(cancelled)"))
    }
  ),
  .init(
    "I2",
    ["*"],
    "T StreamKit traps: ",
    .other,
    intended: true,
    "request(.none) traps in every StreamKit subscription",
    test: { d, _ in d.signature.contains("request(.none)") }
  ),
  .init(
    "I3",
    ["prefix(2)", "output(at:1)", "output(in:1...2)"],
    "",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "prefix(_:) and output(at:)/output(in:) finish right after the last value in range, not on the next value",
    test: { d, _ in
      let sig = d.signature
      return sig == "E up0: up0.cancel|up0.returned" || sig.hasPrefix("E down0: down0.finished|")
        || sig.hasPrefix("E order: ")
        || (sig.hasPrefix("L ") && sig.contains("released by StreamKit only")
          && !sig.contains("OpenCombine only"))
    }
  ),
  .init(
    "I4",
    ["print"],
    "E ",
    .other,
    intended: true,
    "print does not log `request max: (0) (synchronous)` after each value",
    test: { d, _ in
      d.signature.hasPrefix("E print: ") && d.openCombine?.hasSuffix("(synchronous)") == true
    }
  ),
  .init(
    "I5",
    ["removeDuplicates"],
    "",
    .descriptionMirror,
    intended: true,
    "removeDuplicates hands the downstream the upstream's subscription (Combine wraps it)",
    test: { d, script in
      let sig = d.signature
      if script.isMisbehaving {
        // The cancel goes straight to the upstream: what a misbehaving upstream sends after it
        // reaches the downstream.
        let cancelled = script.steps.contains {
          if case .cancel = $0 { return true }
          return false
        }
        return sig.hasPrefix("D down0.") || (cancelled && sig.hasPrefix("E down0: down0."))
      }
      return sig.hasPrefix("D down0.") || sig.hasPrefix("E up0: up0.request|")
        || sig.hasPrefix("E up0: up0.cancel|")
        || sig.hasPrefix("E down0: (none)|down0.request")
        || sig == "T OpenCombine traps: API Violation: demand must not be zero"
    }
  ),
  .init(
    "I6",
    ["drop(untilOutputFrom:)", "prefix(untilOutputFrom:)"],
    "E ",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "drop/prefix(untilOutputFrom:) cancel the other publisher after its first value; drop asks again for each dropped value",
    test: { d, script in
      // The other publisher is subscribed first, so it is up0; the upstream is up1.
      d.signature.hasPrefix("E up0: up0.cancel|")
        || (script.op == "drop(untilOutputFrom:)"
          && d.signature == "E up1: up1.returned|up1.returned"
          && d.streamKit == "up1.returned max(1)")
    }
  ),
  .init(
    "I7",
    ["*"],
    "E down",
    misbehaving: false,
    .other,
    intended: true,
    "nothing reaches a subscriber after it cancelled, not even a completion",
    test: { d, script in
      let cancels = script.steps.contains {
        switch $0 {
        case .cancel, .cancelInReceive: true
        default: false
        }
      }
      guard cancels, let oc = d.openCombine, oc.hasPrefix("down") else { return false }
      let delivery = oc.contains(".value ") || oc.hasSuffix(".finished") || oc.contains(".failure ")
      return delivery
        && (d.streamKit == nil || d.streamKit?.contains(".request") == true
          || d.streamKit?.contains(".cancel") == true)
    }
  ),
  .init(
    "I8",
    [
      "retry(1)", "tryScan", "replaceError", "buffer.byRequest.dropOldest",
      "buffer.byRequest.dropNewest", "buffer.keepFull.dropNewest", "buffer.keepFull.customError",
    ],
    "E up",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "once a subscription has ended (or the downstream cancelled), request/cancel don't reach the upstream it released",
    test: { d, script in
      let ends = script.steps.contains {
        switch $0 {
        case .cancel, .cancelInReceive, .finish, .fail: true
        default: false
        }
      }
      guard ends, let oc = d.openCombine else { return false }
      let ocCall = oc.contains(".request ") || oc.hasSuffix(".cancel")
      let skCall = d.streamKit.map { $0.contains(".request ") || $0.hasSuffix(".cancel") } ?? false
      return ocCall && !skCall
    }
  ),
  .init(
    "I8",
    ["autoconnect", "share"],
    "",
    misbehaving: false,
    .other,
    intended: true,
    "a downstream's second cancel() reaches nothing: OpenCombine's autoconnect counts it again and disconnects the other subscribers",
    test: { d, script in
      var cancels: [Int: Int] = [:]
      for step in script.steps {
        switch step {
        case .cancel(let k), .cancelInReceive(let k): cancels[k, default: 0] += 1
        default: break
        }
      }
      guard cancels.values.contains(where: { $0 > 1 }) else { return false }
      // What follows the disconnect differs too: the other subscribers get no more values in
      // OpenCombine, and the next subscriber connects again.
      let sig = d.signature
      return sig.hasPrefix("E ")
        || (sig.hasPrefix("L ") && sig.contains("released by OpenCombine only")
          && !sig.contains("StreamKit only"))
    }
  ),
  .init(
    "I8",
    [
      "output(at:1)", "output(in:1...2)", "collect(2)", "buffer.keepFull.dropNewest",
      "buffer.keepFull.customError",
    ],
    "E up0: up0.returned|up0.returned",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "after a cancel from inside receive(_:), the demand the downstream returns isn't passed to the cancelled upstream",
    test: { d, script in
      let cancelsInReceive = script.steps.contains {
        if case .cancelInReceive = $0 { return true }
        return false
      }
      return cancelsInReceive && d.streamKit == "up0.returned max(0)"
        && d.openCombine != "up0.returned max(0)"
    }
  ),
  .init(
    "I1",
    ["replaceError"],
    "L up0.sub released by StreamKit only (active)",
    misbehaving: false,
    .lifecycle,
    intended: true,
    "replaceError lets go of the upstream subscription once the upstream failed, while the replacement waits for demand",
    test: { d, script in
      script.steps.contains {
        if case .fail = $0 { return true }
        return false
      }
    }
  ),
  .init(
    "I1",
    [
      "buffer.byRequest.dropOldest", "buffer.byRequest.dropNewest", "buffer.keepFull.dropNewest",
      "buffer.keepFull.customError",
    ],
    "L up0.sub released by StreamKit only (active)",
    .lifecycle,
    intended: true,
    "buffer lets go of the upstream subscription once the upstream completed (or was cancelled on overflow), while buffered values wait for demand",
    test: { _, script in
      script.op == "buffer.keepFull.customError"
        || script.steps.contains {
          switch $0 {
          case .finish, .fail: true
          default: false
          }
        }
    }
  ),
  .init(
    "I8",
    ["print"],
    "E print: (none)|print",
    misbehaving: false,
    .other,
    intended: true,
    "after the end, print logs no request or cancel: none goes upstream",
    test: { d, script in
      let ends = script.steps.contains {
        switch $0 {
        case .cancel, .cancelInReceive, .finish, .fail: true
        default: false
        }
      }
      guard ends, let oc = d.openCombine else { return false }
      return oc.contains(": request ") || oc.hasSuffix(": receive cancel")
    }
  ),
  .init(
    "I2",
    ["print"],
    "E ",
    misbehaving: false,
    .other,
    intended: true,
    "request(.none) traps; print's trace up to the trap is shifted by the lines of I4",
    test: { _, script in
      script.steps.contains {
        switch $0 {
        case .request(_, .max(0)), .requestInReceive(_, .max(0)): true
        default: false
        }
      }
    }
  ),
  .init(
    "I5",
    ["removeDuplicates"],
    "L ",
    .lifecycle,
    intended: true,
    "removeDuplicates: the downstream holds the upstream's own subscription, so it stays alive as long as the downstream keeps it",
    test: { d, _ in d.signature.contains("up0.sub released by OpenCombine only") }
  ),
  .init(
    "I10",
    [
      "reduce", "tryReduce", "drop(while:)", "tryDrop(while:)", "first(where:)", "tryFirst(where:)",
      "last(where:)", "tryLast(where:)", "contains(where:)", "tryContains(where:)", "allSatisfy",
      "tryAllSatisfy", "min(by:)", "tryMax(by:)", "catch", "tryCatch",
    ],
    "L closure released by StreamKit only (active)",
    .lifecycle,
    intended: true,
    "a closure is released as soon as it can't be called again (the upstream ended, the predicate settled, the handler ran), before the subscription ends",
    test: { d, _ in d.signature == "L closure released by StreamKit only (active)" }
  ),
  .init(
    "I9",
    ["replaceEmpty"],
    "",
    .demandPattern,
    intended: true,
    "replaceEmpty passes the subscriber's demand upstream; Combine requests .unlimited at once and delivers values nobody asked for",
    test: { d, _ in d.signature.hasPrefix("E ") || d.signature.hasPrefix("L ") }
  ),
  .init(
    "I11",
    [
      "tryMap", "tryScan", "collect(2)", "prefix(2)", "output(at:1)", "output(in:1...2)",
      "drop(while:)", "tryDrop(while:)", "removeDuplicates", "handleEvents", "print",
      "breakpoint", "receive(on:immediate)", "append(values)", "dropFirst(2)",
    ],
    "",
    misbehaving: true,
    .misbehavingUpstream,
    intended: true,
    "an upstream that breaks the contract: StreamKit passes on no value or completion sent before the subscription or after the completion, no value beyond demand, and cancels a second subscription without passing it on",
    test: { d, script in
      switch d.channel {
      case .lifecycle: return true
      case .trap, .descriptions: return false
      case .events:
        // StreamKit's side delivers nothing that OpenCombine's doesn't; prefix(2) and output
        // finish right after the last value in range (I3), also when it came beyond demand.
        guard let sk = d.streamKit else { return true }
        let finishesEarly = ["prefix(2)", "output(at:1)", "output(in:1...2)"].contains(script.op)
        if finishesEarly && (sk == "down0.finished" || sk.hasSuffix(".cancel")) { return true }
        let delivers =
          sk.hasPrefix("down")
          && (sk.contains(".value ") || sk.hasSuffix(".finished") || sk.contains(".failure ")
            || sk.hasSuffix(".subscription"))
        return !delivers || d.openCombine?.hasPrefix("down") == true
      }
    }
  ),
  .init(
    "I11",
    ["tryScan", "collect(2)", "breakpoint"],
    "D down0.",
    misbehaving: true,
    .descriptionMirror,
    intended: true,
    "follows the I11 event difference: a value or completion before a late subscription (in OpenCombine's tryScan result, or completing collect(2)'s downstream before its subscription) or a second subscription passed on (breakpoint) changes the descriptions and mirrors seen afterwards",
    test: { _, script in
      script.steps.contains {
        if case .sendSubscription = $0 { return true }
        return false
      }
    }
  ),
  .init(
    "I14",
    ["zip", "zip3", "prefix(untilOutputFrom:)"],
    "D ",
    .descriptionMirror,
    intended: true,
    "subscribers and subscriptions that Combine leaves with its internal type name (ChildSubscriber, Inner, Termination: module-private names with addresses) and an implementation mirror are described by the operator's name (Zip, PrefixUntilOutput) with a mirror of their own",
    test: { d, _ in
      guard let oc = d.openCombine else { return false }
      return oc.contains("(unknown context at ") || oc.contains("$__lazy_storage_$")
        || (d.signature.hasSuffix(".playground") && oc.hasSuffix("(none)"))
    }
  ),
  .init(
    "I13",
    ["replaceError"],
    "E down0: ",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "replaceError delivers its replacement and .finished once; OpenCombine delivers them again on each later request (OpenCombine differs from Combine: it never clears its `terminated` flag)",
    test: { d, _ in
      // After the replacement went, OpenCombine's side goes on with it again.
      d.openCombine == "down0.value 42"
        && (d.streamKit == nil || d.streamKit?.hasPrefix("down0.return ") == true)
    }
  ),
  .init(
    "I12",
    ["*"],
    "D down",
    .descriptionMirror,
    intended: true,
    "after the end, a subscription's mirror shows what StreamKit released (downstream, parent, upstream subscription, buffered values) as nil or empty, its status as terminal and no demand",
    test: { d, _ in
      guard d.signature.hasSuffix(".final.mirror"), let sk = d.streamKit, let oc = d.openCombine
      else { return false }
      return MirrorText.onlyReleased(streamKit: sk, openCombine: oc)
    }
  ),
]

/// Known, not yet fixed differences (issue 15). Delete an entry when its difference is fixed.
/// Generated from a run with `--emit-known` (seed 1, the default budget), then edited.
public let knownDifferences: [Expectation] = [
  // Generated by `--emit-known` (seed 1, the default budget): one entry per operator, channel and
  // kind of script (generated or misbehaving upstream); the summaries of the main ones are edited.
  .init(
    "K164",
    ["flatMap(max:1)"],
    "E ",
    misbehaving: false,
    .demandPattern,
    "flatMap (left after the fix of request(.unlimited) and cancel order): OpenCombine keeps the children in a dictionary, so it requests/cancels them in hash order; a request(.unlimited) from inside receive(_:) doesn't reach its children; a child's failure doesn't cancel the upstream"
  ),
  .init(
    "K165",
    ["flatMap(max:2)"],
    "E ",
    misbehaving: false,
    .demandPattern,
    "as flatMap(max:1): the children's order, request(.unlimited) from inside receive(_:), a child's failure"
  ),
  .init(
    "K166",
    ["flatMap(unlimited)"],
    "E ",
    misbehaving: false,
    .demandPattern,
    "as flatMap(max:1): the children's order, request(.unlimited) from inside receive(_:), a child's failure"
  ),
  .init(
    "K167",
    ["switchToLatest"],
    "E ",
    misbehaving: false,
    .demandPattern,
    "switchToLatest (left after the fix of returned demand and cancel order): after a cancel from inside receive(_:), OpenCombine still returns the downstream's demand to the child"
  ),
  .init(
    "K168",
    ["zip"],
    "E ",
    misbehaving: false,
    .demandPattern,
    "zip (left after the fix of subscription order, returned demand and completion order): OpenCombine doesn't pass demand returned from receive(_:) on to the other upstreams, still forwards request/cancel to an upstream that completed, and cancels the upstream that failed"
  ),
  .init(
    "K170",
    ["zip"],
    "L ",
    misbehaving: false,
    .lifecycle,
    "life cycle: up1.sub released by StreamKit only (active) (+1 more)"
  ),
  .init(
    "K171",
    ["zip3"],
    "E ",
    misbehaving: false,
    .demandPattern,
    "as zip: returned demand not passed on to the other upstreams, calls to an upstream that completed"
  ),
  .init(
    "K173",
    ["zip3"],
    "L ",
    misbehaving: false,
    .lifecycle,
    "life cycle: up1.sub released by StreamKit only (active) (+2 more)"
  ),
  .init(
    "K181",
    ["drop(untilOutputFrom:)"],
    "E ",
    misbehaving: false,
    .demandPattern,
    "events first differ: StreamKit `up1.value 3 skipped`, OpenCombine `up1.cancel` (+12 more)"
  ),
  // Added by hand from a run with --seed 2.
]
