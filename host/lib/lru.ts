// A small LRU map with a weight budget: caches of immutable things (sealed records, fitted models).

export class WeightedLru<K, V> {
  private readonly map = new Map<K, { value: V; weight: number }>();
  private total = 0;

  constructor(private readonly budget: number) {}

  get(key: K): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    this.map.delete(key); // most recent last
    this.map.set(key, hit);
    return hit.value;
  }

  set(key: K, value: V, weight = 1): void {
    if (weight > this.budget) return;
    this.delete(key);
    this.map.set(key, { value, weight });
    this.total += weight;
    for (const [k, v] of this.map) {
      if (this.total <= this.budget) break;
      this.map.delete(k);
      this.total -= v.weight;
    }
  }

  delete(key: K): void {
    const old = this.map.get(key);
    if (!old) return;
    this.map.delete(key);
    this.total -= old.weight;
  }
}
