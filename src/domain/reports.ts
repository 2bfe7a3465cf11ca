/** The formats a statement is written in (docs/reports.md). */
export const REPORT_FORMATS = ['csv', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** The longest range one statement covers: a year, leap day included. */
export const MAX_REPORT_DAYS = 366;
