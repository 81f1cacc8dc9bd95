// Small RFC 4180 CSV reader for bench tables: header row, quoted fields, cells kept as strings.

/** Parses CSV text into row objects keyed by the header; every cell stays a string as read. */
export function readCsvRows(text: string): Record<string, string>[] {
  const records = parseRecords(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  const header = records.shift() ?? [];
  return records
    .filter((r) => !(r.length === 1 && r[0] === ''))
    .map((r) => {
      const row: Record<string, string> = {};
      header.forEach((name, c) => (row[name] = r[c] ?? ''));
      return row;
    });
}

function parseRecords(text: string): string[][] {
  const out: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') (record.push(field), (field = ''));
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      (record.push(field), out.push(record), (record = []), (field = ''));
    } else field += ch;
  }
  if (field !== '' || record.length > 0) (record.push(field), out.push(record));
  return out;
}
