// Helpers shared by the tour's sections.

/// Prints the banner that opens one module's part of the tour.
func module(_ name: String, _ summary: String) {
  print("\n#### \(name): \(summary)")
}

/// Prints the heading of one scenario, and in one line what to look for in its output.
func section(_ title: String, look: String) {
  print("\n== \(title) ==")
  print("(look for: \(look))")
}
