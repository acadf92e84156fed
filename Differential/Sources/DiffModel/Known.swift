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
    "I3",
    ["prefix(2)", "output(at:1)", "output(in:1...2)", "Result.prefix(0)"],
    "",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "prefix(_:) and output(at:)/output(in:) finish right after the last value in range, not on the next value",
    test: { d, script in
      // Only once the subscriber has had every value in range: StreamKit cancels the upstream
      // and finishes there (inside the value's `receive(_:)`), OpenCombine at the next value.
      // (`Result.Publisher` has no `prefix` of its own: `prefix(0)` is `output(in: 0..<0)`, which
      // StreamKit finishes as soon as it is subscribed.)
      let inRange = ["prefix(2)": 2, "output(at:1)": 1, "output(in:1...2)": 2][script.op] ?? 0
      guard d.streamKitCount("E down0.value ") == inRange else { return false }
      let sig = d.signature
      if sig == "E up0: up0.cancel|up0.returned" || sig.hasPrefix("E down0: down0.finished|") {
        // (Where StreamKit's run is empty, its record runs to the end of the step, which
        // holds its finish.)
        return d.streamKitCount("E down0.finished") <= (d.streamKitHunk.isEmpty ? 1 : 0)
      }
      // The life cycle after it: StreamKit let go of the subscriber and the upstream's
      // subscription, while OpenCombine's subscription is still active.
      if sig == "L down0 released by StreamKit only, up0.sub released by StreamKit only (active)"
        || sig == "L down0 released by StreamKit only (active)"
      {
        return d.streamKitCount("E down0.finished") == 1
          && d.openCombineCount("E down0.finished") == 0
      }
      return afterEarlyFinish(d, inRange: inRange)
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
      d.signature.hasPrefix("E print: ") && d.streamKitHunk.isEmpty
        && !d.openCombineHunk.isEmpty
        && d.openCombineHunk.allSatisfy { $0.hasSuffix("(synchronous)") }
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
    test: { d, _ in
      // The subscriber cancelled before the difference; OpenCombine's side then delivers to it
      // (and the subscriber reacts), StreamKit's delivers nothing.
      guard let down = d.actor, down.hasPrefix("down"), d.streamKitDid("\(down).cancel") else {
        return false
      }
      return d.openCombineHunk.contains(where: isDelivery)
        && d.openCombineHunk.allSatisfy { isDelivery($0) || isReaction($0) }
        && !d.streamKitHunk.contains(where: isDelivery)
    }
  ),
  .init(
    "I8",
    [
      "retry(1)", "retry(0)", "retry(2)", "tryScan", "replaceError", "buffer.byRequest.dropOldest",
      "buffer.byRequest.dropNewest", "buffer.keepFull.dropNewest", "buffer.keepFull.customError",
      "buffer.keepFull.dropOldest", "buffer.byRequest.customError",
      "zip", "zip3", "zip4", "drop(untilOutputFrom:)",
      "prefix(untilOutputFrom:)",
    ]
      // `delay`, `receive(on:)` and `timeout` now call their upstream after the end as Combine's.
      + timeOperatorNames.filter {
        !["delay", "receive(on:virtual)", "timeout", "timeout(customError:)"].contains($0)
      },
    "E up",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "once a subscription has ended (or the downstream cancelled), request/cancel don't reach the upstream it released",
    test: { d, _ in
      // The subscription ended before the difference; then OpenCombine's side still requests
      // from or cancels the upstream, StreamKit's doesn't.
      // The upstream, not cancelled on StreamKit's side, may go on sending: StreamKit ignores
      // what OpenCombine's side skips (its upstream was cancelled).
      guard let up = d.actor, up.hasPrefix("up"), d.endedBefore(upstream: up) else { return false }
      let calls = d.openCombineHunk.filter(isUpstreamCall)
      let skipped = d.openCombineHunk.filter { $0.hasSuffix(" skipped") }
      // (In a later step than OpenCombine's cancel, only the skipped steps are left.)
      let cancelledEarlier =
        d.openCombineBefore.contains("E \(up).cancel")
        && !d.streamKitBefore.contains("E \(up).cancel")
      return (!calls.isEmpty || cancelledEarlier) && !d.openCombineHunk.isEmpty
        && calls.count + skipped.count == d.openCombineHunk.count
        && d.streamKitHunk.allSatisfy {
          $0 == "\(up).returned max(0)" || skipped.contains($0 + " skipped")
        }
    }
  ),
  .init(
    "I8",
    [
      "output(at:1)", "output(in:1...2)", "collect(2)", "buffer.keepFull.dropNewest",
      "buffer.keepFull.customError", "buffer.keepFull.dropOldest", "buffer.byRequest.customError",
    ],
    "E up0: up0.returned|up0.returned",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "after a cancel from inside receive(_:), the demand the downstream returns isn't passed to the cancelled upstream",
    test: { d, _ in
      d.streamKitDid("down0.cancel (in receive)") && d.streamKitHunk == ["up0.returned max(0)"]
        && d.openCombineHunk.count == 1 && d.openCombine?.hasPrefix("up0.returned ") == true
    }
  ),
  .init(
    "I1",
    ["replaceError"] + timeOperatorNames,
    "released by StreamKit only (active)",
    .lifecycle,
    intended: true,
    "replaceError and the time operators let go of the upstream subscription (timeout also of its closure) once the upstream completed, while what they hold waits for demand or its time",
    test: { d, script in
      let sig = d.signature
      guard sig.hasPrefix("L "), !sig.contains("OpenCombine only"), !sig.contains("down") else {
        return false
      }
      if script.op == "replaceError", d.misbehavedBefore { return false }
      // Only once the upstream completed (for replaceError, failed).
      return d.streamKitDid("up0.failure")
        || (script.op != "replaceError" && d.streamKitDid("up0.finished"))
    }
  ),
  .init(
    "I28",
    ["delay"],
    "D ",
    .descriptionMirror,
    intended: true,
    "delay's subscription is described as Delay with no mirror children; Combine's doesn't customise its reflection (its generic type and fields show)",
    test: { d, _ in
      // The same line, `Delay` (or an empty mirror) against the generic type (or its fields).
      guard let sk = d.streamKit, let oc = d.openCombine else { return false }
      let a = sk.split(separator: " ", maxSplits: 1)
      let b = oc.split(separator: " ", maxSplits: 1)
      guard a.count == 2, b.count == 2, a[0] == b[0] else { return false }
      switch a[1] {
      case "Delay": return b[1].hasPrefix("Publishers.Delay<") || b[1] == "(none)"
      case "[]": return b[1].hasPrefix("[") && b[1].contains("interval: ")
      default: return false
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
    test: { d, _ in
      // print had logged the end already (a completion, or the cancel that went upstream).
      d.streamKitBefore.contains {
        $0.hasPrefix("E print ")
          && ($0.hasSuffix(": receive finished") || $0.contains(": receive error")
            || $0.hasSuffix(": receive cancel"))
      } && d.streamKitHunk.isEmpty
        && d.openCombineHunk.allSatisfy {
          $0.contains(": request ") || $0.hasSuffix(": receive cancel")
        }
    }
  ),
  .init(
    "I10",
    [
      "reduce", "tryReduce", "drop(while:)", "tryDrop(while:)", "first(where:)", "tryFirst(where:)",
      "last(where:)", "tryLast(where:)", "contains(where:)", "tryContains(where:)", "allSatisfy",
      "tryAllSatisfy", "min(by:)", "tryMax(by:)", "max(by:)", "tryMin(by:)", "catch", "tryCatch",
      // Generic reducing operators over a specialised publisher, which ends at once.
      "Just.tryMin(by:)", "Optional.tryMin(by:)", "Optional.tryAllSatisfy",
    ],
    "L closure released by StreamKit only (active)",
    .lifecycle,
    intended: true,
    "a closure is released as soon as it can't be called again (the upstream ended, the predicate settled, the handler ran), before the subscription ends",
    test: { d, _ in d.signature == "L closure released by StreamKit only (active)" }
  ),
  .init(
    "I11",
    [
      "tryMap", "tryScan", "collect(2)", "prefix(2)", "output(at:1)", "output(in:1...2)",
      "drop(while:)", "tryDrop(while:)", "removeDuplicates", "handleEvents", "print",
      "breakpoint", "breakpointOnError", "receive(on:immediate)", "append(values)", "dropFirst(2)",
      "retry(0)", "assign(to:on:)",
      "flatMap(max:1)", "flatMap(max:2)", "flatMap(unlimited)", "switchToLatest", "zip", "zip3",
      "zip4",
      "append", "prepend", "drop(untilOutputFrom:)", "prefix(untilOutputFrom:)", "encode", "decode",
    ],
    "",
    misbehaving: true,
    .misbehavingUpstream,
    intended: true,
    "an upstream that breaks the contract: StreamKit passes on no value or completion sent before the subscription or after the completion, no value beyond demand, and cancels a second subscription without passing it on",
    test: { d, script in
      // Only once the upstream broke the contract.
      guard d.misbehavedBefore else { return false }
      switch d.channel {
      case .lifecycle: return true
      case .descriptions: return false
      case .trap:
        // The violation reaches OpenCombine's breakpoint, which stops the process (SIGTRAP, no
        // message); StreamKit's doesn't pass it on.
        return script.op.hasPrefix("breakpoint") && d.streamKit == nil
          && TrapMeaning.of(d.openCombine) == TrapMeaning.unknown
      case .events:
        // StreamKit's side delivers nothing that OpenCombine's doesn't; prefix(2) and output
        // finish right after the last value in range (I3), also when it came beyond demand.
        // append/prepend: a value the second publisher sends before its subscription goes
        // down within demand (as Combine's retry passes on its new upstream's early value);
        // OpenCombine's drops it.
        let lastOfSecond = d.streamKitBefore.last { $0.hasPrefix("E up1.") }
        if ["append", "prepend"].contains(script.op), d.openCombineHunk.isEmpty,
          let value = d.streamKitHunk.first, value.hasPrefix("down0.value "),
          d.streamKitHunk.dropFirst().allSatisfy({ $0.hasPrefix("down0.return ") }),
          lastOfSecond == "E up1.value \(value.dropFirst("down0.value ".count)) (forced)",
          d.streamKitBefore.contains("E up1.subscription withheld"),
          !d.streamKitBefore.contains(where: { $0.hasPrefix("E up1.subscription #") })
        {
          return true
        }
        // Each value or completion StreamKit's run delivers pairs with one of the same kind in
        // OpenCombine's (what the violation changed may differ: a value counted or not).
        let finishesEarly = ["prefix(2)", "output(at:1)", "output(in:1...2)"].contains(script.op)
        var theirs = d.openCombineHunk.filter(isDelivery).map(deliveryKind)
        for line in d.streamKitHunk where isDelivery(line) {
          if finishesEarly && line == "down0.finished" { continue }
          guard let k = theirs.firstIndex(of: deliveryKind(line)) else { return false }
          theirs.remove(at: k)
        }
        return true
      }
    }
  ),
  .init(
    "I1",
    [
      "buffer.byRequest.dropOldest", "buffer.byRequest.dropNewest", "buffer.keepFull.dropNewest",
      "buffer.keepFull.customError", "buffer.keepFull.dropOldest", "buffer.byRequest.customError",
    ],
    "L up0.sub released by StreamKit only (active)",
    .lifecycle,
    intended: true,
    "buffer lets go of the upstream subscription once the upstream completed (or was cancelled on overflow), while buffered values wait for demand",
    test: { d, script in
      // Once the upstream completed, or (customError) was cancelled on overflow.
      d.streamKitDid("up0.finished") || d.streamKitDid("up0.failure")
        || (script.op.hasSuffix(".customError") && d.streamKitDid("up0.cancel"))
    }
  ),
  .init(
    "I11",
    ["drop(untilOutputFrom:)"],
    "E down0: ",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "the other publisher's completion ended the stream and cancelled the upstream; the upstream then completes anyway (a scripted upstream ignores the cancel) and OpenCombine delivers that as a second completion",
    test: dropUntilOutputSecondCompletion
  ),
  .init(
    "I11",
    ["drop(untilOutputFrom:)"],
    "E down0: ",
    misbehaving: false,
    .other,
    intended: true,
    "as the I11 entry above, when nothing else differs before OpenCombine's second completion",
    test: dropUntilOutputSecondCompletion
  ),
  .init(
    "I11",
    ["tryScan", "collect(2)", "breakpoint", "breakpointOnError", "retry(0)"],
    "D down0.",
    misbehaving: true,
    .descriptionMirror,
    intended: true,
    "follows the I11 event difference: a value or completion before a late subscription (in OpenCombine's tryScan result, or completing collect(2)'s downstream before its subscription) or a second subscription passed on (breakpoint) changes the descriptions and mirrors seen afterwards",
    test: { d, _ in d.misbehavedBefore }
  ),
  .init(
    "I13",
    ["replaceError", "replaceEmpty"],
    "E down0: ",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "replaceError and replaceEmpty deliver their replacement and .finished once; OpenCombine delivers them again on each later request (OpenCombine differs from Combine: it never clears the flag that holds the replacement back)",
    test: { d, _ in
      // Once the replacement went to both, OpenCombine's side sends it and .finished again,
      // and StreamKit's has nothing more than the demand and the finish both had.
      // A finish only OpenCombine's side shows is a second one: StreamKit's is there, before
      // the difference or in it.
      let streamKitFinished =
        d.streamKitCount("E down0.finished") + d.streamKitHunk.count { $0 == "down0.finished" }
      guard d.streamKitCount("E down0.value 42") == 1, d.openCombineCount("E down0.value 42") >= 1,
        streamKitFinished == 1 || !d.openCombineHunk.contains("down0.finished")
      else { return false }
      let bookkeeping = { (line: String) in
        line.hasPrefix("down0.return ") || line.hasPrefix("down0.request ")
          || line == "down0.finished"
      }
      return d.streamKitHunk.allSatisfy(bookkeeping)
        && d.openCombineHunk.allSatisfy { $0 == "down0.value 42" || bookkeeping($0) }
    }
  ),
  .init(
    "I14",
    ["zip", "zip3", "zip4", "prefix(untilOutputFrom:)"],
    "D ",
    .descriptionMirror,
    intended: true,
    "subscribers and subscriptions that Combine leaves with its internal type name (ChildSubscriber, Inner, Termination: module-private names with addresses) and an implementation mirror are described by the operator's name (Zip, PrefixUntilOutput) with a mirror of their own",
    test: { d, script in
      guard let oc = d.openCombine, let sk = d.streamKit else { return false }
      // StreamKit's side is the operator's name, or its own mirror (zip: the downstream and the
      // demand; prefix(untilOutputFrom:): none).
      let name = script.op.hasPrefix("zip") ? "Zip" : "PrefixUntilOutput"
      let (what, text) = (sk.prefix { $0 != " " }, sk.drop { $0 != " " }.dropFirst())
      let ownMirror =
        name == "Zip"
        ? text.hasPrefix("[downstream: ")
          && MirrorText.children(String(text))?.map(\.label)
            == ["downstream", "demand"]
        : text == "[]"
      let streamKitOwn = what.hasSuffix(".mirror") ? ownMirror : text == name
      return streamKitOwn
        && (oc.contains("(unknown context at ") || oc.contains("$__lazy_storage_$")
          || (d.signature.hasSuffix(".playground") && oc.hasSuffix("(none)")))
    }
  ),
  .init(
    "I23",
    ["zip", "zip3", "zip4"],
    "",
    misbehaving: true,
    .misbehavingUpstream,
    intended: true,
    "OpenCombine differs from Combine (a crash, not a trap): zip with an upstream whose subscription comes late: OpenCombine gives the downstream its subscription only once every upstream's has arrived, and then crashes reading a released object (an unowned reference, no message); StreamKit gives it after subscribing them all",
    test: { d, _ in
      d.streamKitBefore.contains { $0.hasSuffix(".subscription withheld") }
        && (d.signature == "E down0: down0.subscription|(none)"
          || d.signature.hasPrefix("T OpenCombine traps: Attempted to read an unowned"))
    }
  ),
  .init(
    "I23",
    ["drop(untilOutputFrom:)", "retry(0)", "retry(1)", "retry(2)"],
    "T OpenCombine traps: demand cannot be negative",
    misbehaving: true,
    .misbehavingUpstream,
    intended: true,
    "OpenCombine differs from Combine (its demand arithmetic traps where Combine's gives .max(0)): a value beyond demand while dropping: OpenCombine's demand arithmetic traps (no note that Combine does; Combine documents demand subtraction as never negative); StreamKit drops it and asks for one more",
    test: { d, _ in
      // The trap follows a value the upstream forced beyond demand.
      TrapMeaning.of(d.openCombine) == "a value beyond demand" && d.streamKit == nil
        && d.openCombineBefore.last { $0.hasPrefix("E ") }?.hasSuffix(" (forced)") == true
    }
  ),
  .init(
    "I12",
    ["*"],
    "D down",
    .descriptionMirror,
    intended: true,
    "after the end, a subscription's mirror shows what StreamKit released (downstream, parent, upstream subscription, buffered values) as nil or empty, its status as terminal and no demand",
    test: { d, script in
      guard d.signature.hasSuffix(".final.mirror"), let sk = d.streamKit, let oc = d.openCombine
      else { return false }
      // Only a subscription that has ended (its subscriber completed or cancelled), or whose
      // upstream has (what it released is then the upstream's part, I1).
      let down = String(sk.prefix { $0 != "." })
      let ended =
        d.subscriberEndedBefore(down) || d.streamKitDid("up0.finished")
        || d.streamKitDid("up0.failure") || d.streamKitDid("up0.cancel")
      // debounce: the timer fired after the last value, which went down (or, with no demand,
      // was dropped): StreamKit holds it no more.
      let lastValue = d.streamKitBefore.lastIndex { $0.hasPrefix("E up0.value ") }
      let lastRun = d.streamKitBefore.lastIndex { $0.hasPrefix("S sched.run ") }
      let fired =
        script.op == "debounce" && lastRun != nil && lastValue.map { lastRun! > $0 } == true
      return (ended || fired) && MirrorText.onlyReleased(streamKit: sk, openCombine: oc)
    }
  ),
  .init(
    "I8",
    ["switchToLatest"],
    "E up",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "after a cancel from inside receive(_:), the demand the downstream returns isn't passed to the child it cancelled",
    test: { d, _ in
      guard d.streamKitDid("down0.cancel (in receive)"), d.streamKitHunk.count == 1,
        d.openCombineHunk.count == 1, let sk = d.streamKit, let oc = d.openCombine
      else { return false }
      return sk.hasSuffix(".returned max(0)") && oc.contains(".returned ")
        && !oc.hasSuffix(".returned max(0)")
    }
  ),
  .init(
    "I1",
    ["zip", "zip3", "zip4"],
    "L ",
    .lifecycle,
    intended: true,
    "zip lets go of an upstream's subscription once that upstream completed, while its queued values wait",
    test: { d, _ in
      // Each upstream whose subscription StreamKit released had completed before.
      guard d.signature.hasSuffix("(active)"), !d.signature.contains("OpenCombine only") else {
        return false
      }
      let released = d.signature.dropFirst(2).split(separator: ", ").map {
        $0.hasPrefix("up") ? String($0.prefix { $0 != "." }) : ""
      }
      return !released.isEmpty
        && released.allSatisfy { up in
          !up.isEmpty && (d.streamKitDid("\(up).finished") || d.streamKitDid("\(up).failure"))
        }
    }
  ),
  .init(
    "I8",
    ["*"],
    "T OpenCombine traps: ",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "after the end, a request(.none) doesn't reach the upstream StreamKit released, so it doesn't trap there as OpenCombine's does",
    test: { d, _ in
      // The subscription ended, then the subscriber's last call was request(.none), which
      // OpenCombine's operator passed to its upstream, which trapped.
      TrapMeaning.of(d.openCombine) == "request(.none)" && d.subscriberEndedBefore("down0")
        && d.openCombineBefore.last { $0.hasPrefix("E ") } == "E down0.request max(0)"
    }
  ),
  .init(
    "I14",
    ["assign(to:&$x)"],
    "D up0.subscriber",
    .descriptionMirror,
    intended: true,
    "the subscriber that assign(to: &$x) subscribes is a private type in each library (StreamKit's PublishedAssignment, OpenCombine's PublishedSubscriber), and each describes it by its own name",
    test: { d, _ in
      d.streamKit?.hasSuffix(".PublishedAssignment<Int>") == true
        && d.openCombine?.hasPrefix("up0.subscriber PublishedSubscriber<Int>(") == true
    }
  ),
  .init(
    "I21",
    ["flatMap(max:1)", "flatMap(max:2)", "flatMap(unlimited)"],
    "E order: ",
    misbehaving: false,
    .demandPattern,
    intended: true,
    "flatMap requests from and cancels its children in slot order; OpenCombine (and Combine) in the hash order of a dictionary",
    test: { d, _ in
      // Only the interleaving of the children's calls differs; each child's log agrees.
      guard let sk = d.streamKit, let oc = d.openCombine else { return false }
      func childCall(_ line: String) -> Bool {
        line.hasPrefix("up") && !line.hasPrefix("up0")
          && (line.contains(".request ") || line.hasSuffix(".cancel"))
      }
      return childCall(sk) && childCall(oc)
    }
  ),
]

/// Known, not yet fixed differences (issue 15). Delete an entry when its difference is fixed.
/// Generated from a run with `--emit-known` (seed 1, the default budget), then edited.
public let knownDifferences: [Expectation] = [
  // Generated by `--emit-known` (seed 1, the default budget): one entry per operator, channel and
  // kind of script (generated or misbehaving upstream); the summaries of the main ones are edited.
  // Added by hand from a run with --seed 2.
]

/// The amount of a `….request max(N)` / `….request unlimited` line (`Int.max` for unlimited).
func requestedAmount(_ line: String) -> Int? {
  guard let amount = line.split(separator: " ").last, line.contains(".request ") else { return nil }
  if amount == "unlimited" { return Int.max }
  guard amount.hasPrefix("max("), amount.hasSuffix(")") else { return nil }
  return Int(amount.dropFirst(4).dropLast())
}

/// The time operators' scenario names (Sources/StreamKitScenarios/TimeScenarios.swift).
let timeOperatorNames = [
  "debounce", "throttle(latest:true)", "throttle(latest:false)", "delay", "timeout",
  "timeout(customError:)", "measureInterval", "receive(on:virtual)", "subscribe(on:virtual)",
]

/// `drop(untilOutputFrom:)`: the other publisher (upstream 1) completed before the upstream, so
/// the stream ended and the upstream was cancelled; the difference is OpenCombine's second
/// completion, sent when the upstream completes after that cancel.
@Sendable func dropUntilOutputSecondCompletion(_ d: Difference, _ script: Script) -> Bool {
  guard let oc = d.openCombine, oc.hasPrefix("down0.failure") || oc == "down0.finished" else {
    return false
  }
  // The first upstream completion before the difference is the other publisher's.
  let first = d.streamKitBefore.first {
    ($0.hasPrefix("E up0.") || $0.hasPrefix("E up1."))
      && ($0.hasSuffix(".finished") || $0.contains(".failure ")) && !$0.hasSuffix(" skipped")
  }
  return first?.hasPrefix("E up1.") == true
}

/// What follows I3's early finish, and nothing else: StreamKit's subscriber finished after the
/// values in range (and OpenCombine's had the same values), then StreamKit's upstream steps are
/// skipped and its subscriber's requests go nowhere, while OpenCombine still asks its upstream,
/// takes its next event without passing a value on, cancels it and finishes then.
func afterEarlyFinish(_ d: Difference, inRange: Int) -> Bool {
  guard d.channel == .events, d.streamKitCount("E down0.finished") == 1,
    d.openCombineCount("E down0.value ") == inRange
  else { return false }
  let streamKitQuiet = d.streamKitHunk.allSatisfy { line in
    line.hasSuffix(" skipped") || line == "up0.returned max(0)" || line == "up0.cancel"
      || line == "down0.finished" || line.hasPrefix("down0.request ") || line == "down0.cancel"
  }
  let openCombineNoValue = d.openCombineHunk.allSatisfy { line in
    line.hasPrefix("up0.") || line.hasPrefix("down0.request ") || line == "down0.cancel"
      || line == "down0.finished" || line.hasPrefix("down0.failure ")
      || line.hasPrefix("down0.return ")
  }
  return streamKitQuiet && openCombineNoValue
}

/// A value or completion reaching a subscriber.
func isDelivery(_ line: String) -> Bool {
  line.hasPrefix("down")
    && (line.contains(".value ") || line.hasSuffix(".finished") || line.contains(".failure "))
}

/// What a delivery is, without what it carries: `down0.value`, `down0.finished`, `down0.failure`.
func deliveryKind(_ line: String) -> String {
  String(line.prefix { $0 != " " })
}

/// A subscriber's own call or return: what it does when something reaches it.
func isReaction(_ line: String) -> Bool {
  line.hasPrefix("down")
    && (line.contains(".return ") || line.contains(".request ") || line.contains(".cancel"))
}

/// A request or cancel reaching a scripted upstream.
func isUpstreamCall(_ line: String) -> Bool {
  line.hasPrefix("up")
    && (line.contains(".request ") || line.hasSuffix(".cancel")
      || line.contains(".cancel on #"))
}

extension Difference {
  /// The actor whose events differ (`down0`, `up1`, `print`, …); `nil` for the other channels.
  var actor: String? {
    guard channel == .events, signature.hasPrefix("E "), !signature.hasPrefix("E order: ") else {
      return nil
    }
    return String(signature.dropFirst(2).prefix { $0 != ":" })
  }

  /// Whether StreamKit's trace shows the event `what` (`down0.cancel`, `up1.finished`, …)
  /// before the difference; a skipped step doesn't count.
  func streamKitDid(_ what: String) -> Bool {
    streamKitBefore.contains { $0.hasPrefix("E " + what) && !$0.contains(" skipped") }
  }

  /// Whether, on StreamKit's side before the difference, `upstream` was done with: it finished
  /// or failed, StreamKit cancelled it, or the subscriber's stream completed.
  func endedBefore(upstream: String) -> Bool {
    streamKitDid("\(upstream).finished") || streamKitDid("\(upstream).failure")
      || streamKitDid("\(upstream).cancel") || streamKitDid("down0.finished")
      || streamKitDid("down0.failure")
  }

  /// Whether subscriber `down`'s own subscription ended before the difference on StreamKit's
  /// side: it completed or cancelled.
  func subscriberEndedBefore(_ down: String) -> Bool {
    streamKitDid("\(down).finished") || streamKitDid("\(down).failure")
      || streamKitDid("\(down).cancel")
  }

  /// Whether an upstream broke the contract before the difference or in it: a forced value or
  /// completion, a subscription withheld (sent late, if at all), or a second subscription.
  var misbehavedBefore: Bool {
    // Either side's record counts: the upstream's steps are the script's, the same on both.
    (streamKitBefore + openCombineBefore + streamKitHunk + openCombineHunk).contains {
      $0.hasSuffix(" (forced)") || $0.hasSuffix(".subscription withheld")
        || $0.contains(".subscription #2") || $0.contains(".subscription #3")
    }
  }
}
