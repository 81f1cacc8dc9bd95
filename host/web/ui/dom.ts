// Tiny DOM helpers for the preview page: build elements from data, never from HTML strings (the page's
// CSP allows no inline script, and text from a CSV must never be parsed as markup).
type Attrs = Record<string, string | number | boolean | undefined>;
type Child = Node | string | number | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === 'class') node.className = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  append(node, children);
  return node;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== false) node.setAttribute(k, String(v));
  append(node, children);
  return node;
}

function append(node: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces the content of the element with id `id`. */
export function fill(id: string, ...children: Child[]): HTMLElement {
  const node = byId(id);
  node.replaceChildren();
  append(node, children);
  return node;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node as T;
}

/** Options of a <select>: [value, label] pairs; keeps the current value when it is still offered. */
export function setOptions(select: HTMLSelectElement, options: Array<[string, string]>, preferred?: string): void {
  const keep = preferred ?? select.value;
  select.replaceChildren(...options.map(([value, label]) => el('option', { value }, label)));
  if (options.some(([v]) => v === keep)) select.value = keep;
}

/** Lets the browser paint (a "fitting..." line) before a long synchronous step. */
export function nextFrame(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => setTimeout(resolve, 0);
    requestAnimationFrame(done);
    setTimeout(done, 100); // a hidden tab runs no animation frames
  });
}

export function fmt(x: number | null | undefined, digits = 3): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits);
}
