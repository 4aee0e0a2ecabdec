#!/usr/bin/env node
// A complete minimal Kleene backend in JavaScript (Node.js, no packages; docs/backends.md).
//
// It speaks protocol 1 over stdin/stdout (one JSON object per line) and
// computes SES patterns of singleton variables under the `any` policy
// (seed 000 Def. 2): a match binds every variable to one event, no event
// twice, every condition holds (SQL three-valued logic: a missing attribute
// or a comparison of a string with a number is unknown, and unknown is not
// true), every event of a set comes strictly before (ts) every event of the
// next set, and max ts - min ts <= tau. It claims exactly `ses` and
// `ses:any`: the runner skips every case needing anything else, with the reason.
//
//   kleene conform --backend "cmd:node conformance/examples/minimal_backend.js"
"use strict";
const readline = require("readline");

const NAME = "minimal-javascript", VERSION = "1.0";
const CAPABILITIES = ["ses", "ses:any"];
const UNIT_MS = {ms: 1, s: 1000, sec: 1000, second: 1000, seconds: 1000, min: 60000,
  minute: 60000, minutes: 60000, h: 3600000, hour: 3600000, hours: 3600000,
  d: 86400000, day: 86400000, days: 86400000};
const TOKEN = /\s*(?:(\d+(?:\.\d+)?)|('(?:[^']|'')*'|"(?:[^"]|"")*")|(<>|!=|<=|>=|[=<>(),.{}+-])|([A-Za-z_]\w*))/y;

class Rejected extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

function tokens(text) {
  const out = [];
  text = text.trim();
  let pos = 0;
  while (pos < text.length) {
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(text);
    if (!m || TOKEN.lastIndex === pos) throw new Rejected("syntax", `unexpected character at ${pos}`);
    if (m[1] !== undefined) out.push(["num", Number(m[1])]);
    else if (m[2] !== undefined) {
      const q = m[2][0];
      out.push(["str", m[2].slice(1, -1).split(q + q).join(q)]);
    } else if (m[3] !== undefined) out.push(["op", m[3]]);
    else out.push(["word", m[4]]);
    pos = TOKEN.lastIndex;
  }
  return out;
}

class Parser {
  constructor(text) { this.toks = tokens(text); this.i = 0; }
  peek() { return this.i < this.toks.length ? this.toks[this.i] : [null, null]; }
  word(...words) {
    const [kind, value] = this.peek();
    return kind === "word" && words.includes(String(value).toUpperCase());
  }
  take(value) {
    const tok = this.peek();
    if (tok[0] === null || (value !== undefined && tok[1] !== value)) {
      throw new Rejected("syntax", `expected ${value}, found ${tok[1]}`);
    }
    this.i += 1;
    return tok[1];
  }
  pattern() {
    if (!this.word("PATTERN")) throw new Rejected("syntax", "a pattern starts with PATTERN");
    this.take();
    this.take("<");
    const sets = [];
    for (;;) {
      this.take("{");
      const names = [];
      for (;;) {
        names.push(this.take());
        if (this.peek()[1] === "+") throw new Rejected("unsupported", "group variables are not in this fragment");
        if (this.peek()[1] !== ",") break;
        this.take(",");
      }
      this.take("}");
      sets.push(names);
      if (this.peek()[1] !== ",") break;
      this.take(",");
    }
    this.take(">");
    const keys = [];
    if (this.word("PARTITION")) {      // PARTITION BY a, b: v.a = w.a for every pair
      this.take();
      if (!this.word("BY")) throw new Rejected("syntax", "expected BY after PARTITION");
      this.take();
      keys.push(this.take());
      while (this.peek()[1] === ",") { this.take(","); keys.push(this.take()); }
    }
    let condition = ["true"];
    if (this.word("WHERE")) { this.take(); condition = this.disjunction(); }
    const declared = sets.flat();
    const pairs = keys.flatMap(a => declared.flatMap((v, i) => declared.slice(i + 1).map(
      w => ["cmp", "=", ["attr", v, a], ["attr", w, a]])));
    if (pairs.length) condition = ["and", [...pairs, condition]];
    if (!this.word("WITHIN")) throw new Rejected("syntax", "expected WITHIN");
    this.take();
    const tau = this.take();
    const unit = this.peek()[0] === "word" ? this.take() : null;
    if (this.peek()[0] !== null) throw new Rejected("syntax", `unexpected ${this.peek()[1]} after the window`);
    const names = sets.flat();
    if (new Set(names).size !== names.length) throw new Rejected("syntax", "a variable is declared twice");
    for (const v of variables(condition)) {
      if (!names.includes(v)) throw new Rejected("syntax", `undeclared variable ${v}`);
    }
    return {sets, condition, tau, unit};
  }
  disjunction() {
    const parts = [this.conjunction()];
    while (this.word("OR")) { this.take(); parts.push(this.conjunction()); }
    return parts.length > 1 ? ["or", parts] : parts[0];
  }
  conjunction() {
    const parts = [this.atom()];
    while (this.word("AND")) { this.take(); parts.push(this.atom()); }
    return parts.length > 1 ? ["and", parts] : parts[0];
  }
  atom() {
    if (this.word("NOT")) { this.take(); return ["not", this.atom()]; }
    if (this.word("TRUE", "FALSE")) return String(this.take()).toUpperCase() === "TRUE" ? ["true"] : ["false"];
    if (this.peek()[1] === "(") {
      this.take("(");
      const inner = this.disjunction();
      this.take(")");
      return inner;
    }
    const left = this.term();
    const op = this.take();
    if (!["=", "!=", "<>", "<", "<=", ">", ">="].includes(op)) throw new Rejected("syntax", `expected a comparison, found ${op}`);
    return ["cmp", op === "<>" ? "!=" : op, left, this.term()];
  }
  term() {
    const [kind, value] = this.peek();
    if (kind === "num" || kind === "str") { this.take(); return ["const", value]; }
    if (value === "-") { this.take(); return ["const", -this.take()]; }
    if (kind !== "word" || String(value).toLowerCase() === "prev") {
      throw new Rejected("unsupported", `${value}: only var.attr, numbers and strings`);
    }
    const v = this.take();
    this.take(".");
    return ["attr", v, this.take()];
  }
}

function variables(c) {
  if (c[0] === "cmp") return c.slice(2).filter((t) => t[0] === "attr").map((t) => t[1]);
  if (c[0] === "not") return variables(c[1]);
  if (c[0] === "and" || c[0] === "or") return c[1].flatMap(variables);
  return [];
}

const kind = (v) => typeof v === "boolean" ? "bool" : typeof v === "number" ? "num" : "str";

function evaluate(c, binding) {  // true, false or null (unknown), SQL style
  const tag = c[0];
  if (tag === "true" || tag === "false") return tag === "true";
  if (tag === "not") { const v = evaluate(c[1], binding); return v === null ? null : !v; }
  if (tag === "and" || tag === "or") {
    const values = c[1].map((x) => evaluate(x, binding));
    const decisive = tag === "or";
    if (values.includes(decisive)) return decisive;
    return values.includes(null) ? null : !decisive;
  }
  const [, op, left, right] = c;
  const value = (t) => {
    if (t[0] === "const") return t[1];
    const v = binding[t[1]][t[2]];
    return v === undefined ? null : v;
  };
  const a = value(left), b = value(right);
  if (a === null || b === null || kind(a) !== kind(b)) return null;
  return {"=": a === b, "!=": a !== b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op];
}

function matches(request) {
  if (request.language !== "ses" || request.policy !== "any") {
    throw new Rejected("unsupported", "only SES patterns under the any policy");
  }
  let {sets, condition, tau, unit} = new Parser(request.pattern).pattern();
  if (unit !== null) {
    if (request.time_unit === null) throw new Rejected("pattern", "the window has a unit, the timestamps have none");
    tau = tau * UNIT_MS[unit.toLowerCase()] / UNIT_MS[request.time_unit];
  }
  const strict = request.window === "strict";
  const names = sets.flat();
  const setOf = {};
  sets.forEach((part, i) => part.forEach((v) => { setOf[v] = i; }));
  const events = request.events;
  const out = [];
  const extend = (chosen) => {
    if (chosen.length === names.length) {
      const ts = chosen.map((p) => events[p].ts);
      const span = Math.max(...ts) - Math.min(...ts);
      if (span > tau || (strict && span === tau)) return;
      for (let x = 0; x < names.length; x++) {
        for (let y = 0; y < names.length; y++) {
          if (setOf[names[x]] < setOf[names[y]] && !(events[chosen[x]].ts < events[chosen[y]].ts)) return;
        }
      }
      const binding = {};
      names.forEach((v, i) => { binding[v] = events[chosen[i]]; });
      if (evaluate(condition, binding) === true) {
        const m = {};
        names.forEach((v, i) => { m[v] = [chosen[i]]; });
        out.push(m);
      }
      return;
    }
    for (let p = 0; p < events.length; p++) {
      if (!chosen.includes(p)) extend([...chosen, p]);
    }
  };
  extend([]);
  return out;
}

const lines = readline.createInterface({input: process.stdin, terminal: false});
lines.on("line", (line) => {
  const message = JSON.parse(line);
  let answer;
  if (message.cmd === "hello") {
    answer = {protocol: 1, name: NAME, version: VERSION, capabilities: CAPABILITIES};
  } else if (message.cmd === "run") {
    try {
      answer = {seq: message.seq, matches: matches(message)};
    } catch (err) {
      if (!(err instanceof Rejected)) throw err;
      answer = {seq: message.seq, error: {code: err.code, message: err.message}};
    }
  } else {  // bye
    lines.close();
    process.exit(0);
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
