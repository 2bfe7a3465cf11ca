/**
 * Rows in aligned columns under a header, two spaces apart, each followed by its own detail lines (indented by the
 * caller): how the verbs that print a report rather than JSON lay it out.
 */
export function textTable(header: string[], rows: { cells: string[]; details: string[] }[]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row.cells[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return `${[line(header), ...rows.flatMap((row) => [line(row.cells), ...row.details])].join('\n')}\n`;
}
