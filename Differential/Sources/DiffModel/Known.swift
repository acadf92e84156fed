// The machine-read lists of expected differences. See Expectations.swift and INTENDED.md.

/// Deliberate differences; each id has a section in Differential/INTENDED.md.
public let intendedDifferences: [Expectation] = []

/// Known, not yet fixed differences (issue 15). Delete an entry when its difference is fixed.
public let knownDifferences: [Expectation] = []
