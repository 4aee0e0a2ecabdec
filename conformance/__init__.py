"""Conformance: language-neutral cases (``cases/*.json``), Hypothesis
strategies, the differential runner and the backend plug-in."""
