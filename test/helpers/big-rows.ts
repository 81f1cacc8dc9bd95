// A seeded table of 10,000 rows x 24 numeric columns whose fit takes long enough (about a second)
// that a short pending wait turns the ask pending and a process can be killed or closed during it.
export function bigRows(): Array<Record<string, number | string>> {
  let s = 99;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: 10_000 }, (_, i) => {
    const row: Record<string, number | string> = { id: `e${i}` };
    let z = -1;
    for (let j = 0; j < 24; j++) {
      const v = Math.round(rnd() * 1000) / 10;
      row[`x${j}`] = v;
      if (j < 4) z += (v - 50) / 40;
    }
    row.y = rnd() < 1 / (1 + Math.exp(-z)) ? 1 : 0;
    return row;
  });
}
