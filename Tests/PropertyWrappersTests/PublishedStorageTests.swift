import StreamCore
import Testing

@testable import PropertyWrappers

/// How a `@Published` property's storage connects to its owner's `objectWillChange`.
@Suite(.timeLimit(.minutes(5))) struct PublishedStorageTests {
  @Test func willChange_isInstalledOnceThenShared_andFiresBeforeTheSubscribers() {
    let storage = PublishedStorage(0)
    let first = ObservableObjectPublisher()
    let second = ObservableObjectPublisher()
    #expect(storage.sharedWillChange == nil)
    #expect(storage.installWillChange(first) === first)
    #expect(storage.installWillChange(second) === first)
    #expect(storage.sharedWillChange == nil)
    storage.markWillChangeShared()
    #expect(storage.sharedWillChange === first)
    var log: [String] = []
    let willChange = first.sink { log.append("will change, value \(storage.value)") }
    let values = storage.subject.sink { log.append("value \($0)") }
    storage.set(1)
    #expect(
      log == ["value 0", "will change, value 0", "value 1"]
    )
    #expect(storage.value == 1)
    withExtendedLifetime((willChange, values)) {}
  }

  @Test func markShared_withoutAPublisher_changesNothing() {
    let storage = PublishedStorage(0)
    storage.markWillChangeShared()
    #expect(storage.sharedWillChange == nil)
    let publisher = ObservableObjectPublisher()
    #expect(storage.installWillChange(publisher) === publisher)
  }
}
