import Dispatch
import Foundation
import SignalOperators
import StreamCore
import StreamSnail
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct NotificationCenterPublisherTests {
  let center = NotificationCenter()
  let name = Notification.Name("SnailOpsTestNotification")

  // Issue 15: as Combine's, the subscription is a "NotificationCenter Observer" whose mirror
  // shows the center, the name, the object and the demand; the cancel lets go of the center
  // and the object.
  @Test func subscription_mirrorsCenterNameObjectAndDemand() throws {
    let sender = NSObject()
    let recorder = RecordingSubscriber<Notification, Never>(initialDemand: .max(2))
    NotificationCenter.Publisher(center: center, name: name, object: sender).subscribe(recorder)
    let subscription = try #require(recorder.subscription)
    #expect(String(describing: subscription) == "NotificationCenter Observer")
    let playground = subscription as? any CustomPlaygroundDisplayConvertible
    #expect(playground?.playgroundDescription as? String == "NotificationCenter Observer")
    center.post(name: name, object: sender)
    let children = { Mirror(reflecting: subscription).children }
    #expect(children().map(\.label) == ["center", "name", "object", "demand"])
    let values = Array(children()).map(\.value)
    #expect(values[0] as? NotificationCenter === center)
    #expect(values[1] as? Notification.Name == name)
    #expect(values[2] as? NSObject === sender)
    #expect(values[3] as? Subscribers.Demand == .max(1))
    subscription.cancel()
    let ended = Array(children()).map(\.value)
    #expect(String(describing: ended[0]) == "nil")
    #expect(ended[1] as? Notification.Name == name)
    #expect(String(describing: ended[2]) == "nil")
    #expect(ended[3] as? Subscribers.Demand == Subscribers.Demand.none)
  }

  @Test func publisher_hasCenterNameObject() {
    let sender = NSObject()
    let publisher = center.publisher(for: name, object: sender)
    #expect(publisher.center === center)
    #expect(publisher.name == name)
    #expect(publisher.object === sender)
  }

  @Test func post_deliversNotificationOnPostingThread() {
    let recorder = RecordingSubscriber<Notification, Never>()
    center.publisher(for: name).subscribe(recorder)
    center.post(name: name, object: nil)
    center.post(name: Notification.Name("Other"), object: nil)
    #expect(recorder.values.map(\.name) == [name])
    #expect(recorder.subscriptionDescription == "NotificationCenter Observer")
  }

  @Test func object_filtersSender() {
    let sender = NSObject()
    let recorder = RecordingSubscriber<Notification, Never>()
    center.publisher(for: name, object: sender).subscribe(recorder)
    center.post(name: name, object: NSObject())
    center.post(name: name, object: sender)
    #expect(recorder.values.count == 1)
    #expect(recorder.values.first?.object as AnyObject? === sender)
  }

  @Test func noDemand_dropsNotifications() {
    let recorder = RecordingSubscriber<Notification, Never>(initialDemand: Subscribers.Demand.none)
    center.publisher(for: name).subscribe(recorder)
    center.post(name: name, object: nil)
    #expect(recorder.values.isEmpty)
    recorder.request(.max(1))
    #expect(recorder.values.isEmpty)
    center.post(name: name, object: nil)
    center.post(name: name, object: nil)
    #expect(recorder.values.count == 1)
  }

  @Test func demandFromReceive_isAdded() {
    let recorder = RecordingSubscriber<Notification, Never>(
      initialDemand: .max(1),
      demandPerValue: .max(1)
    )
    center.publisher(for: name).subscribe(recorder)
    for _ in 0..<3 { center.post(name: name, object: nil) }
    #expect(recorder.values.count == 3)
  }

  @Test func cancel_removesObserver() {
    weak var weakInner: AnyObject?
    do {
      let recorder = RecordingSubscriber<Notification, Never>()
      center.publisher(for: name).subscribe(recorder)
      weakInner = recorder.subscription as AnyObject?
      #expect(weakInner != nil)
      recorder.cancel()
      center.post(name: name, object: nil)
      #expect(recorder.values.isEmpty)
    }
    // The center's observer block holds the subscription; it is gone once the observer is.
    #expect(weakInner == nil)
  }

  @Test func observeEvent_subscribeAndCancel() {
    var count = 0
    let token = center.observeEvent(name).subscribe(onNext: { _ in count += 1 })
    center.post(name: name, object: nil)
    token.cancel()
    center.post(name: name, object: nil)
    #expect(count == 1)
  }

  @Test func postFromReceive_deliveredAfterwardsWithoutRecursion() {
    var depth = 0
    var maxDepth = 0
    var count = 0
    let center = self.center
    let name = self.name
    let token = center.publisher(for: name).subscribe(onNext: { _ in
      depth += 1
      maxDepth = max(maxDepth, depth)
      count += 1
      if count < 3 { center.post(name: name, object: nil) }
      depth -= 1
    })
    center.post(name: name, object: nil)
    #expect(count == 3)
    #expect(maxDepth == 1)
    _ = token
  }

  @Test func concurrentPosts_nothingLostOrDuplicated() {
    let log = SnailOpsLog<Int>()
    let center = self.center
    let name = self.name
    let token = center.publisher(for: name).subscribe(onNext: { note in
      log.append(note.userInfo?["n"] as? Int ?? -1)
    })
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      for value in 0..<100 {
        center.post(name: name, object: nil, userInfo: ["n": worker * 100 + value])
      }
    }
    #expect(log.entries.sorted() == Array(0..<400))
    _ = token
  }
}
