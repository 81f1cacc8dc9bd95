// RFC 4180 records of a CSV text as arrays of strings (quoted fields, doubled quotes, CRLF), for checking
// exports cell by cell; written apart from host/table/csv.ts so a test does not read our CSV with our reader.
export function csvRecords(text: string): string[][] {
  const records: string[][] = [];
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
    else if (ch === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += ch;
  }
  if (field !== '' || record.length > 0) (record.push(field), records.push(record));
  return records;
}
