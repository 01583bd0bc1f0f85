// fairsight: the DOM helpers shared by the report views. GPL-3.0-or-later.
//
// h (an HTML element) and s (an SVG element) with their attributes and children,
// svgTitle (an SVG shape's tooltip) and fact (one label and value of a <dl>), shared by
// every view. Everything is built with DOM APIs: text from the report (PGN tags, names,
// comments, error messages) only ever reaches the page through textContent or attribute
// values with fixed attribute names, never as markup.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An HTML element; `attrs` keys are fixed in www/view/, `class` and `text` are special. */
export function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  if (attrs) setAttrs(node, attrs);
  for (const c of children) append(node, c);
  return node;
}

/** An SVG element. */
export function s(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  if (attrs) setAttrs(node, attrs);
  for (const c of children) append(node, c);
  return node;
}

function setAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') node.textContent = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
}

function append(node, child) {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const c of child) append(node, c);
  } else if (typeof child === 'string' || typeof child === 'number') {
    node.append(document.createTextNode(String(child)));
  } else {
    node.append(child);
  }
}

/** A `<title>` child: the tooltip (and accessible name) of an SVG shape. */
export function svgTitle(text) {
  return s('title', { text });
}

/** One label (text, or text and a "what it means" button) and value of a `<dl>`. */
export function fact(dl, label, value, cls) {
  if (value === null || value === undefined || value === '') return;
  dl.append(h('div', { class: cls ? `fact ${cls}` : 'fact' }, h('dt', null, label), h('dd', null, value)));
}
