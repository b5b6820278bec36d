"""File formats in and out: proposals, scenarios, reports (text, JSON, JUnit, Markdown), ITF, DOT, Promela
and the generated rules documentation."""
