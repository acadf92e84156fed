import Dispatch
import PropertyWrappers
import StreamCore
import StreamTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ObservableObjectTests {
  class Contact: ObservableObject {
    @Published var name = "John"
    @Published var age = 24
    var notPublished = 0
  }

  final class Employee: Contact {
    @Published var role = "engineer"
  }

  class Plain {
    var tag = 0
  }

  final class Derived: Plain, ObservableObject {
    @Published var flag = false
  }

  final class Empty: ObservableObject {
    var value = 0
  }

  final class Custom: ObservableObject {
    let objectWillChange = PassthroughSubject<Void, Never>()
    @Published var value = 0
  }

  final class Manual: ObservableObject {
    let objectWillChange = ObservableObjectPublisher()
    var value = 0 {
      willSet { objectWillChange.send() }
    }
  }

  final class Fed: ObservableObject {
    @Published var value = 0
    init(from upstream: PassthroughSubject<Int, Never>) {
      upstream.assign(to: &$value)
    }
  }

  final class SelfObserving: ObservableObject {
    @Published var value = 0
    var changes = 0
    var cancellables = Set<AnyCancellable>()
    init() {
      objectWillChange.sink { [weak self] in self?.changes += 1 }.store(in: &cancellables)
    }
  }

  @MainActor final class Screen: ObservableObject {
    @Published var title = "home"
  }

  // Sendable: its only state is @Published storage, which is thread-safe and never reassigned.
  final class Shared: ObservableObject, @unchecked Sendable {
    @Published var a = 0
    @Published var b = 0
  }

  @Test func objectWillChange_firesBeforeTheValueChanges() {
    let contact = Contact()
    var seen: [Int] = []
    let token = contact.objectWillChange.sink { seen.append(contact.age) }
    contact.age = 25
    contact.age += 1
    #expect(seen == [24, 25])
    #expect(contact.age == 26)
    token.cancel()
  }

  @Test func objectWillChange_firesOncePerAssignmentOfAnyPublishedProperty() {
    let contact = Contact()
    let recorder = RecordingSubscriber<Void, Never>()
    contact.objectWillChange.subscribe(recorder)
    contact.name = "Jane"
    contact.age = 24
    contact.age = 24
    contact.notPublished = 1
    #expect(recorder.values.count == 3)
  }

  @Test func objectWillChange_firesBeforeThePropertySubscribers() {
    let contact = Contact()
    var log: [String] = []
    let age = contact.$age.sink { log.append("age \($0)") }
    let will = contact.objectWillChange.sink { log.append("will change") }
    contact.age = 30
    #expect(log == ["age 24", "will change", "age 30"])
    age.cancel()
    will.cancel()
  }

  @Test func objectWillChange_isTheSamePublisherOnEveryRead() {
    let contact = Contact()
    #expect(contact.objectWillChange === contact.objectWillChange)
    let employee = Employee()
    #expect(employee.objectWillChange === employee.objectWillChange)
    #expect(employee.objectWillChange !== contact.objectWillChange)
  }

  @Test func subclass_ownAndInheritedPropertiesBothFire() {
    let employee = Employee()
    var seen: [String] = []
    let token = employee.objectWillChange.sink {
      seen.append("\(employee.name) \(employee.age) \(employee.role)")
    }
    employee.role = "manager"
    employee.name = "Jane"
    employee.age = 40
    #expect(seen == ["John 24 engineer", "John 24 manager", "Jane 24 manager"])
    token.cancel()
  }

  @MainActor @Test func mainActorObject_publishesAndFiresObjectWillChange() {
    let screen = Screen()
    var log: [String] = []
    let will = screen.objectWillChange.sink { log.append("was \(screen.title)") }
    let title = screen.$title.sink { log.append("now \($0)") }
    screen.title = "settings"
    #expect(log == ["now home", "was home", "now settings"])
    will.cancel()
    title.cancel()
  }

  @Test func subclassOfPlainClass_publishedPropertiesFire() {
    let derived = Derived()
    let recorder = RecordingSubscriber<Void, Never>()
    derived.objectWillChange.subscribe(recorder)
    derived.flag = true
    derived.tag = 1
    #expect(recorder.values.count == 1)
  }

  @Test func noPublishedProperties_publisherExistsAndNeverFires() {
    let empty = Empty()
    let recorder = RecordingSubscriber<Void, Never>()
    empty.objectWillChange.subscribe(recorder)
    empty.value = 1
    #expect(recorder.events.count == 1)
    #expect(recorder.completion == nil)
  }

  @Test func customObjectWillChange_isNotSentByPublishedProperties() {
    let custom = Custom()
    let recorder = RecordingSubscriber<Void, Never>()
    custom.objectWillChange.subscribe(recorder)
    custom.value = 1
    #expect(recorder.values.isEmpty)
    custom.objectWillChange.send()
    #expect(recorder.values.count == 1)
  }

  @Test func assignTo_firesObjectWillChangeBeforeEachValue() {
    let upstream = PassthroughSubject<Int, Never>()
    let fed = Fed(from: upstream)
    var seen: [Int] = []
    let token = fed.objectWillChange.sink { seen.append(fed.value) }
    upstream.send(1)
    upstream.send(2)
    #expect(seen == [0, 1])
    #expect(fed.value == 2)
    token.cancel()
  }

  @Test func subscriptionToObjectWillChange_doesNotRetainTheObject() {
    weak var weakContact: Contact?
    let recorder = RecordingSubscriber<Void, Never>()
    do {
      let contact = Contact()
      weakContact = contact
      contact.objectWillChange.subscribe(recorder)
      contact.age = 1
    }
    #expect(weakContact == nil)
    #expect(recorder.values.count == 1)
  }

  @Test func objectStoringItsOwnSubscription_isReleased() {
    weak var weakObject: SelfObserving?
    do {
      let object = SelfObserving()
      weakObject = object
      object.value = 1
      object.value = 2
      #expect(object.changes == 2)
    }
    #expect(weakObject == nil)
  }

  @Test func concurrentFirstReads_agreeOnOnePublisher() {
    for _ in 0..<20 {
      let shared = Shared()
      let identities = LockedState(Set<ObjectIdentifier>())
      DispatchQueue.concurrentPerform(iterations: 8) { _ in
        let publisher = shared.objectWillChange
        identities.withLock { _ = $0.insert(ObjectIdentifier(publisher)) }
      }
      #expect(identities.withLock { $0.count } == 1)
      let recorder = RecordingSubscriber<Void, Never>()
      shared.objectWillChange.subscribe(recorder)
      shared.b = 1
      #expect(recorder.values.count == 1)
    }
  }

  @Test func concurrentAssignments_fireOncePerAssignment() {
    let shared = Shared()
    let recorder = RecordingSubscriber<Void, Never>()
    shared.objectWillChange.subscribe(recorder)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for step in 1...100 {
        if thread.isMultiple(of: 2) { shared.a = step } else { shared.b = step }
      }
    }
    #expect(recorder.values.count == 800)
    #expect(shared.a == 100)
    #expect(shared.b == 100)
    #expect(recorder.violations.isEmpty)
  }
}
