import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for the URLSession tests: it listens on a free port,
/// answers each connection on a thread of its own and records what it saw.
///
/// - `/ok` answers 200 with the body `hello`;
/// - `/missing` answers 404 with the body `not found`;
/// - `/hang` never answers: the connection stays open until the client closes it (recorded as
///   `closed /hang`) or the server stops.
/// Anything else answers 500.
final class LocalHTTPServer: @unchecked Sendable {
  let port: UInt16
  /// `GET /ok`, `closed /hang`, … in the order they happened.
  let log = Collected<String>()
  private let listener: Int32
  private let lock = NSLock()
  private var clients: [Int32] = []
  private var stopped = false

  init() throws {
    let fd = socket(AF_INET, Self.streamType, 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = Self.loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(fd, 16) == 0 else {
      close(fd)
      throw POSIXError(.EADDRINUSE)
    }
    listener = fd
    port = Self.boundPort(of: fd)
    Thread { [self] in acceptLoop() }.start()
  }

  /// `http://127.0.0.1:<port><path>`.
  func url(_ path: String) -> URL {
    URL(string: "http://127.0.0.1:\(port)\(path)")!
  }

  /// Stops listening and closes every open connection.
  func stop() {
    lock.lock()
    let open = clients
    let first = !stopped
    stopped = true
    clients = []
    lock.unlock()
    // Only once: a second close could close a descriptor the system has handed out again.
    guard first else { return }
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
    for client in open { shutdown(client, Int32(SHUT_RDWR)) }
  }

  deinit { stop() }

  /// A port on 127.0.0.1 that refuses connections: a socket bound to it that does not listen.
  /// Keep the returned descriptor until the test ends, so no other test's server takes the port,
  /// then `close` it.
  static func refusingPort() -> (port: UInt16, descriptor: Int32) {
    let fd = socket(AF_INET, streamType, 0)
    var address = loopback(port: 0)
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    return (boundPort(of: fd), fd)
  }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      if client < 0 { return }
      lock.lock()
      clients.append(client)
      lock.unlock()
      Thread { [self] in serve(client) }.start()
    }
  }

  private func serve(_ client: Int32) {
    defer {
      lock.lock()
      clients.removeAll { $0 == client }
      lock.unlock()
      close(client)
    }
    var request = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !request.containsHeaderEnd {
      let count = recv(client, &buffer, buffer.count, 0)
      if count <= 0 { return }
      request += buffer[0..<count]
    }
    let line = String(decoding: request, as: UTF8.self).split(separator: "\r\n").first ?? ""
    let parts = line.split(separator: " ")
    let path = parts.count > 1 ? String(parts[1]) : ""
    log.append("GET \(path)")
    switch path {
    case "/ok": respond(client, status: "200 OK", body: "hello")
    case "/missing": respond(client, status: "404 Not Found", body: "not found")
    case "/hang":
      // Wait for the client to close: recv returns 0 (or fails) once it has.
      while recv(client, &buffer, buffer.count, 0) > 0 {}
      log.append("closed /hang")
    default: respond(client, status: "500 Internal Server Error", body: "unknown path")
    }
  }

  private func respond(_ client: Int32, status: String, body: String) {
    let text =
      "HTTP/1.1 \(status)\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
      + "Connection: close\r\n\r\n\(body)"
    let bytes = Array(text.utf8)
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
      if count <= 0 { return }
      sent += count
    }
  }

  private static var streamType: Int32 {
    #if canImport(Glibc) || canImport(Musl)
    Int32(SOCK_STREAM.rawValue)
    #else
    SOCK_STREAM
    #endif
  }

  private static func loopback(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }

  private static func boundPort(of fd: Int32) -> UInt16 {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return UInt16(bigEndian: address.sin_port)
  }
}

extension Array where Element == UInt8 {
  fileprivate var containsHeaderEnd: Bool {
    count >= 4
      && (0...(count - 4)).contains { self[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }
  }
}
