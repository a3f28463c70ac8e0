public import ReportFormats

/// One problem found in a source file: where, which rule, what is wrong and how to fix
/// it. The same type the reports render (`LintRun.Finding`, in ReportFormats, which
/// this module already depends on): one type, no copy.
public typealias Finding = LintRun.Finding
