// The spec reader: spec files in, SpecIR JSON out, one line per file.
//
//   node reader.mjs <spec file>...        (stdout: one JSON object per file)
//
// Environment: EUTAXY_TYPESCRIPT is the pinned typescript package's folder;
// EUTAXY_SPEC_DTS is eutaxy/spec's declaration file; EUTAXY_SPEC_VALUES is
// eutaxy/spec's values.mjs, the value encoding literals are written in. Every binder type is
// what the compiler resolved (aliases declared later, instantiated generics,
// inline object types, imports from other files); what stays Eutaxy's is
// which kinds it names and the expression subset it writes as trees. Nothing
// here decides a verdict.

import { createRequire } from "node:module";
import path from "node:path";
import fs from "node:fs";
import { pathToFileURL } from "node:url";
import { readFunctions } from "./bodies.mjs";
import { sourceConstants } from "./constants.mjs";

const require = createRequire(import.meta.url);
const tsDir = process.env.EUTAXY_TYPESCRIPT;
if (!tsDir) {
  process.stderr.write("reader: EUTAXY_TYPESCRIPT must name the typescript package folder\n");
  process.exit(2);
}
const ts = require(tsDir);
const specDts = path.resolve(process.env.EUTAXY_SPEC_DTS ?? "");
const specValues = process.env.EUTAXY_SPEC_VALUES;
if (!specValues) {
  process.stderr.write("reader: EUTAXY_SPEC_VALUES must name eutaxy/spec's values.mjs\n");
  process.exit(2);
}
// The spec package owns the value encoding; it ships apart from this folder, so it is found by path.
const { exact } = await import(pathToFileURL(specValues).href);

/** Limits: nesting deeper than this is read as unsupported, never looped on. */
const MAX_TYPE_DEPTH = 12;
const MAX_TEXT = 120;
/** The longest real time a timer can wait (2^31 - 1 ms, about 24.8 days): a property's timeoutMs is at most this. */
const TIMEOUT_MS_MAX = 2147483647;
/** Helper predicates inline into one another at most this deep (a recursive one is left a call). */
const MAX_INLINE_DEPTH = 8;

const BUILTIN_CALLS = new Set([
  "Number.isInteger", "Number.isFinite", "Number.isNaN", "Number.isSafeInteger",
  "Math.abs", "Math.min", "Math.max", "Math.floor", "Math.ceil", "Math.trunc", "Math.sign", "Math.round",
]);

const BINARY_OPS = new Map([
  [ts.SyntaxKind.EqualsEqualsEqualsToken, "==="], [ts.SyntaxKind.ExclamationEqualsEqualsToken, "!=="],
  [ts.SyntaxKind.EqualsEqualsToken, "=="], [ts.SyntaxKind.ExclamationEqualsToken, "!="],
  [ts.SyntaxKind.LessThanToken, "<"], [ts.SyntaxKind.LessThanEqualsToken, "<="],
  [ts.SyntaxKind.GreaterThanToken, ">"], [ts.SyntaxKind.GreaterThanEqualsToken, ">="],
  [ts.SyntaxKind.PlusToken, "+"], [ts.SyntaxKind.MinusToken, "-"],
  [ts.SyntaxKind.AsteriskToken, "*"], [ts.SyntaxKind.SlashToken, "/"], [ts.SyntaxKind.PercentToken, "%"],
  [ts.SyntaxKind.AmpersandAmpersandToken, "&&"], [ts.SyntaxKind.BarBarToken, "||"],
  [ts.SyntaxKind.QuestionQuestionToken, "??"],
]);

/** The compiler options for a spec file, and the project folder declarations are named relative to. */
function baseOptions(specFile) {
  const defaults = {
    strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler, allowImportingTsExtensions: true,
    skipLibCheck: true, noEmit: true, types: [], lib: ["lib.es2022.d.ts"],
  };
  const configPath = ts.findConfigFile(path.dirname(specFile), ts.sys.fileExists, "tsconfig.json");
  if (!configPath) return { options: defaults, root: path.dirname(specFile) };
  const root = path.dirname(path.resolve(configPath));
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, {
    ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {},
  });
  if (!parsed) return { options: defaults, root };
  return { options: { ...parsed.options, noEmit: true, skipLibCheck: true, allowImportingTsExtensions: true }, root };
}

// The in-memory layer over the host's files: one parse per file per process,
// so the standard library is parsed once however many spec files are read.
// A file is parsed again when its text changed.
const parsed = new Map();

function makeHost(options) {
  const host = ts.createCompilerHost(options, true);
  const readFile = host.readFile.bind(host);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError) => {
    const text = readFile(fileName);
    if (text === undefined) {
      onError?.(`cannot read ${fileName}`);
      return undefined;
    }
    const version = typeof languageVersionOrOptions === "object"
      ? languageVersionOrOptions.languageVersion : languageVersionOrOptions;
    const cacheKey = `${fileName}\0${version}\0${languageVersionOrOptions?.impliedNodeFormat ?? ""}`;
    const hit = parsed.get(cacheKey);
    if (hit && hit.text === text) return hit.sourceFile;
    const sourceFile = ts.createSourceFile(fileName, text, languageVersionOrOptions, true);
    parsed.set(cacheKey, { text, sourceFile });
    return sourceFile;
  };
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, opts) =>
    literals.map((literal) => {
      if (literal.text === "eutaxy/spec") {
        return { resolvedModule: { resolvedFileName: specDts, extension: ts.Extension.Dts, isExternalLibraryImport: true } };
      }
      return ts.resolveModuleName(literal.text, containingFile, opts, host, undefined, redirected);
    });
  return host;
}

function lineOf(node) {
  const sf = node.getSourceFile();
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

function textOf(node) {
  const t = node.getText().replace(/\s+/g, " ");
  return t.length > MAX_TEXT ? t.slice(0, MAX_TEXT - 1) + "…" : t;
}

function resolveAlias(checker, symbol) {
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) return checker.getAliasedSymbol(symbol);
  return symbol;
}

/** An expression without the parentheses, `as`, `satisfies` and `!` around it. */
function stripped(node) {
  while (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)
         || ts.isNonNullExpression(node) || ts.isTypeAssertionExpression(node)) node = node.expression;
  return node;
}

/** Calls that write to their first argument's properties, as an assignment does. */
const WRITING_CALLS = new Set([
  "Object.defineProperty", "Object.defineProperties", "Object.assign", "Object.setPrototypeOf",
  "Reflect.set", "Reflect.defineProperty", "Reflect.deleteProperty", "Reflect.setPrototypeOf",
]);
/** Names of the global object itself. */
const GLOBAL_OBJECTS = new Set(["globalThis", "window", "self", "global"]);
/** Library types whose values are built-ins the engines model (an alias `const M = Math` has type `Math`). */
const BUILTIN_TYPES = new Set(["Math", "JSON", "Reflect", "Intl", "Atomics", "typeof globalThis"]);
/** Aliases (`const g = f`, re-exports) followed at most this many times. */
const MAX_ALIAS_HOPS = 16;

class Reader {
  constructor(program, specFile, root) {
    this.program = program;
    this.checker = program.getTypeChecker();
    this.specFile = specFile;
    /** The project folder: declarations are named by their file relative to it. */
    this.root = root ?? path.dirname(specFile);
    /** Every function resolveFunction found, by id: the bodies read are taken from here. */
    this.resolved = new Map();
  }

  relative(fileName) {
    return path.relative(this.root, path.resolve(fileName)).split(path.sep).join("/");
  }

  // ---- declarations ------------------------------------------------------

  /**
   * The function a callee resolves to, as the compiler resolves it: an identifier, or `ns.f` through a
   * namespace import, followed through imports, re-exports, default exports and `const g = f` aliases
   * to a top-level `function` with a body or a top-level `const` arrow or function expression of a
   * source file. `{id, name, file, node, fn, inSpec}`, or null when it resolves to anything else (a
   * declaration file, a `let`, a method, a parameter, a nested function).
   */
  resolveFunction(expr) {
    let symbol = this.checker.getSymbolAtLocation(ts.isPropertyAccessExpression(expr) ? expr.name : expr);
    for (let hops = 0; symbol && hops < MAX_ALIAS_HOPS; hops += 1) {
      if (symbol.flags & ts.SymbolFlags.Alias) {
        symbol = this.checker.getAliasedSymbol(symbol);
        continue;
      }
      const decls = symbol.declarations ?? [];
      const implementation = decls.find((d) => ts.isFunctionDeclaration(d) && d.body);
      if (implementation) {
        return ts.isSourceFile(implementation.parent) ? this.functionAt(implementation, implementation, implementation.name) : null;
      }
      const decl = symbol.valueDeclaration ?? decls[0];
      if (!decl || decl.getSourceFile().isDeclarationFile) return null;
      let init;
      if (ts.isVariableDeclaration(decl) && decl.initializer && ts.getCombinedNodeFlags(decl) & ts.NodeFlags.Const
          && ts.isSourceFile(decl.parent.parent.parent)) init = decl.initializer;
      else if (ts.isExportAssignment(decl) && !decl.isExportEquals) init = decl.expression;
      else return null;
      init = stripped(init);
      if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) {
        return this.functionAt(decl, init, ts.isVariableDeclaration(decl) && ts.isIdentifier(decl.name) ? decl.name : init.name);
      }
      if (ts.isIdentifier(init)) symbol = this.checker.getSymbolAtLocation(init);
      else if (ts.isPropertyAccessExpression(init)) symbol = this.checker.getSymbolAtLocation(init.name);
      else return null;
    }
    return null;
  }

  /** A resolved function, named by its file and the position of its name (of the function when it has none). */
  functionAt(decl, fn, nameNode) {
    const sf = decl.getSourceFile();
    const at = nameNode ?? fn;
    const { line, character } = sf.getLineAndCharacterOfPosition(at.getStart(sf));
    const file = this.relative(sf.fileName);
    const id = `${file}:${line + 1}:${character + 1}`;
    const statement = ts.isVariableDeclaration(decl) ? decl.parent.parent : decl;
    const found = { id, name: nameNode?.text ?? "default", file, node: statement, fn, inSpec: sf.fileName === this.specFile };
    this.resolved.set(id, found);
    return found;
  }

  /** `ns` in `ns.f(...)` when it is a namespace import (`import * as ns`) or a namespace. */
  isNamespace(identifier) {
    const symbol = resolveAlias(this.checker, this.checker.getSymbolAtLocation(identifier));
    return Boolean(symbol && symbol.flags & (ts.SymbolFlags.ValueModule | ts.SymbolFlags.NamespaceModule)
      && !(symbol.flags & ts.SymbolFlags.Variable));
  }

  // ---- writes to globals -------------------------------------------------

  /**
   * Every write to a global or a built-in in the program's source files: assignments (`Math.max = ...`,
   * `Number.prototype.f = ...`, `globalThis.x = ...`, through a `const` alias too), `++`/`--`, `delete`,
   * and `Object.defineProperty`/`assign`/`setPrototypeOf` and `Reflect`'s writers on one.
   */
  globalWrites() {
    const out = [];
    for (const sf of this.program.getSourceFiles()) {
      if (sf.isDeclarationFile) continue;
      const visit = (node) => {
        const target = this.writtenGlobal(node);
        if (target) out.push({ file: this.relative(sf.fileName), line: lineOf(node), target, text: textOf(node) });
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
    return out;
  }

  writtenGlobal(node) {
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment
        && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) return this.globalTarget(node.left);
    if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node))
        && (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)) {
      return this.globalTarget(node.operand);
    }
    if (ts.isDeleteExpression(node)) return this.globalTarget(node.expression);
    if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const callee = stripped(node.expression);
      if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && this.isGlobal(callee.expression)
          && WRITING_CALLS.has(`${callee.expression.text}.${callee.name.text}`)) {
        const target = this.globalTarget(node.arguments[0], true);
        const key = node.arguments[1];
        if (!target || !key) return target;
        return ts.isStringLiteralLike(key) && `${callee.expression.text}.${callee.name.text}` !== "Object.assign"
          ? `${target}.${key.text}` : target;
      }
    }
    return null;
  }

  /** The global a written place reaches (`Math.max`, `Number.prototype.toFixed`, `globalThis.x`), else null. */
  globalTarget(place, whole = false, hops = 0) {
    return this.globalByName(place, whole, hops) ?? this.globalByType(place);
  }

  /** Through the names: a global's own name at the root, or a `const` alias of one (`const P = Number.prototype`). */
  globalByName(place, whole, hops) {
    const chain = [];
    let e = stripped(place);
    while (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) {
      if (ts.isPropertyAccessExpression(e)) chain.unshift(e.name.text);
      else chain.unshift(ts.isStringLiteralLike(e.argumentExpression) ? e.argumentExpression.text : "[...]");
      e = stripped(e.expression);
    }
    if (!ts.isIdentifier(e)) return null;
    if (chain.length === 0 && !whole) {
      // A plain name written: only a global's own name is a global write (a module's names are its own).
      return this.isGlobal(e) && !this.isModuleLocal(e) ? e.text : null;
    }
    if (GLOBAL_OBJECTS.has(e.text) && !this.isModuleLocal(e)) return [e.text, ...chain].join(".");
    if (this.isGlobal(e)) return [e.text, ...chain].join(".");
    let symbol = this.checker.getSymbolAtLocation(e);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    const decl = symbol?.valueDeclaration;
    if (hops < MAX_ALIAS_HOPS && decl && ts.isVariableDeclaration(decl) && decl.initializer
        && ts.getCombinedNodeFlags(decl) & ts.NodeFlags.Const) {
      const inner = this.globalByName(decl.initializer, true, hops + 1);
      if (inner) return [inner, ...chain].join(".");
    }
    return null;
  }

  /** Through the types: the written object is a built-in whatever names it (a parameter of type `Math`). */
  globalByType(place) {
    const chain = [];
    let e = stripped(place);
    while (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) {
      chain.unshift(ts.isPropertyAccessExpression(e) ? e.name.text
        : ts.isStringLiteralLike(e.argumentExpression) ? e.argumentExpression.text : "[...]");
      const object = stripped(e.expression);
      const type = this.checker.getTypeAtLocation(object);
      if (BUILTIN_TYPES.has(this.typeName(type)) || this.isBuiltinConstructorType(type)) {
        return [textOf(object), ...chain].join(".");
      }
      e = object;
    }
    return null;
  }

  isBuiltinConstructorType(type) {
    const symbol = type.getSymbol();
    const decl = symbol?.declarations?.[0];
    return Boolean(decl && this.program.isSourceFileDefaultLibrary(decl.getSourceFile()) && symbol.name.endsWith("Constructor"));
  }

  isModuleLocal(identifier) {
    const decl = this.checker.getSymbolAtLocation(identifier)?.declarations?.[0];
    return Boolean(decl && !decl.getSourceFile().isDeclarationFile);
  }

  // ---- types -------------------------------------------------------------

  typeName(type) {
    return this.checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation);
  }

  literalValue(type) {
    const f = type.flags;
    if (f & ts.TypeFlags.StringLiteral) return { ok: true, value: type.value };
    if (f & ts.TypeFlags.NumberLiteral) return { ok: true, value: encoded(type.value) };
    if (f & ts.TypeFlags.BigIntLiteral) {
      const v = type.value;
      return { ok: true, value: encoded(BigInt((v.negative ? "-" : "") + v.base10Value)) };
    }
    if (f & ts.TypeFlags.BooleanLiteral) return { ok: true, value: type.intrinsicName === "true" };
    return { ok: false };
  }

  convert(type, depth = 0, stack = []) {
    const name = this.typeName(type);
    if (depth > MAX_TYPE_DEPTH) return { kind: "unsupported", name, reason: "nesting too deep" };
    if (stack.includes(type)) return { kind: "unsupported", name, reason: "recursive type" };
    const f = type.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return { kind: "unsupported", name, reason: "any or unknown has no domain" };
    if (f & ts.TypeFlags.Never) return { kind: "unsupported", name, reason: "never has no values" };
    if (f & ts.TypeFlags.TypeParameter) return { kind: "unsupported", name, reason: "uninstantiated type parameter" };
    if (f & ts.TypeFlags.Boolean) return { kind: "boolean", name };
    const literal = this.literalValue(type);
    if (literal.ok && !(f & ts.TypeFlags.Union)) return { kind: "literal", name, value: literal.value };
    if (f & ts.TypeFlags.Number) return { kind: "number", name };
    if (f & ts.TypeFlags.BigInt) return { kind: "bigint", name };
    if (f & ts.TypeFlags.String) return { kind: "string", name };
    if (f & ts.TypeFlags.Null) return { kind: "literal", name, value: null };
    if (f & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return { kind: "literal", name, value: encoded(undefined) };
    const inner = [...stack, type];
    if (f & ts.TypeFlags.Union) return this.convertUnion(type, name, depth, inner);
    if (f & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) return this.convertObject(type, name, depth, inner);
    if (f & ts.TypeFlags.TemplateLiteral) return this.convertTemplate(type, name, depth, inner);
    return { kind: "unsupported", name, reason: `${describeFlags(f)} is not drawn` };
  }

  convertTemplate(type, name, depth, stack) {
    const holes = type.types.map((t) => this.convert(t, depth + 1, stack));
    const drawable = ["number", "bigint", "boolean", "string", "literal", "literal_union"];
    const refused = holes.find((h) => !drawable.includes(h.kind));
    if (refused) return { kind: "unsupported", name, reason: `a template literal type with a hole of type ${refused.name} is not drawn` };
    return { kind: "template", name, texts: [...type.texts], holes };
  }

  convertUnion(type, name, depth, stack) {
    let hasNull = false, hasUndefined = false;
    let rest = [];
    for (const member of type.types) {
      if (member.flags & ts.TypeFlags.Null) hasNull = true;
      else if (member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) hasUndefined = true;
      else rest.push(member);
    }
    const base = this.convertNonNullUnion(rest, name, depth, stack);
    if (!hasNull && !hasUndefined) return base;
    return { kind: "nullable", name, inner: base, null: hasNull, undefined: hasUndefined };
  }

  convertNonNullUnion(members, name, depth, stack) {
    if (members.length === 0) return { kind: "unsupported", name, reason: "empty union" };
    const trueIdx = members.findIndex((m) => m.flags & ts.TypeFlags.BooleanLiteral && m.intrinsicName === "true");
    const falseIdx = members.findIndex((m) => m.flags & ts.TypeFlags.BooleanLiteral && m.intrinsicName === "false");
    const literals = members.map((m) => this.literalValue(m));
    if (literals.every((l) => l.ok)) {
      if (members.length === 2 && trueIdx >= 0 && falseIdx >= 0) return { kind: "boolean", name: "boolean" };
      if (members.length === 1) return { kind: "literal", name: this.typeName(members[0]), value: literals[0].value };
      return { kind: "literal_union", name, values: literals.map((l) => l.value) };
    }
    if (members.length === 1) return this.convert(members[0], depth + 1, stack);
    const tagged = this.taggedUnion(members, name, depth, stack);
    if (tagged) return tagged;
    const converted = [];
    let sawBoolean = false;
    for (const m of members) {
      if (trueIdx >= 0 && falseIdx >= 0 && m.flags & ts.TypeFlags.BooleanLiteral) {
        if (!sawBoolean) converted.push({ kind: "boolean", name: "boolean" });
        sawBoolean = true;
        continue;
      }
      converted.push(this.convert(m, depth + 1, stack));
    }
    return { kind: "union", name, members: converted };
  }

  taggedUnion(members, name, depth, stack) {
    if (!members.every((m) => m.flags & ts.TypeFlags.Object && !this.checker.isArrayType(m))) return null;
    const first = this.checker.getPropertiesOfType(members[0]).map((p) => p.name);
    for (const tag of first) {
      const tags = [];
      let ok = true;
      for (const m of members) {
        const prop = this.checker.getPropertyOfType(m, tag);
        if (!prop) { ok = false; break; }
        const lit = this.literalValue(this.checker.getTypeOfSymbol(prop));
        if (!lit.ok) { ok = false; break; }
        tags.push(lit.value);
      }
      if (!ok) continue;
      if (new Set(tags.map((t) => JSON.stringify(t))).size !== tags.length) continue;
      return {
        kind: "tagged_union", name, tag,
        variants: members.map((m, i) => ({ tag: tags[i], record: this.convertObject(m, this.typeName(m), depth + 1, stack) })),
      };
    }
    return null;
  }

  convertObject(type, name, depth, stack) {
    const checker = this.checker;
    if (checker.isArrayType(type)) {
      const element = checker.getTypeArguments(type)[0];
      const readonly = type.target?.symbol?.name === "ReadonlyArray" || type.symbol?.name === "ReadonlyArray";
      return { kind: "array", name, readonly, element: this.convert(element, depth + 1, stack) };
    }
    if (checker.isTupleType(type)) return { kind: "unsupported", name, reason: "tuple types are not drawn yet" };
    if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) {
      return { kind: "unsupported", name, reason: "functions are not drawn" };
    }
    if (checker.getIndexInfosOfType(type).length > 0) {
      return { kind: "unsupported", name, reason: "index signatures are not drawn" };
    }
    const symbol = type.getSymbol();
    const decl = symbol?.declarations?.[0];
    if (decl && this.program.isSourceFileDefaultLibrary(decl.getSourceFile())) {
      return { kind: "unsupported", name, reason: `${symbol.name} from the standard library is not drawn` };
    }
    const fields = [];
    for (const prop of checker.getPropertiesOfType(type)) {
      const propType = checker.getTypeOfSymbol(prop);
      if (propType.getCallSignatures().length > 0) {
        return { kind: "unsupported", name, reason: `field ${prop.name} is a method` };
      }
      fields.push({
        name: prop.name, optional: Boolean(prop.flags & ts.SymbolFlags.Optional),
        type: this.convert(propType, depth + 1, stack),
      });
    }
    return { kind: "record", name, fields };
  }

  // ---- expressions -------------------------------------------------------

  outside(node, construct) {
    return { kind: "outside", construct: construct ?? ts.SyntaxKind[node.kind], line: lineOf(node), text: textOf(node) };
  }

  moduleFunction(identifier) {
    const symbol = resolveAlias(this.checker, this.checker.getSymbolAtLocation(identifier));
    const decl = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
    if (!decl) return null;
    const sf = decl.getSourceFile();
    if (sf.fileName === this.specFile || sf.isDeclarationFile) return null;
    return symbol.name;
  }

  isGlobal(identifier) {
    const symbol = this.checker.getSymbolAtLocation(identifier);
    const decl = symbol?.declarations?.[0];
    return Boolean(decl && decl.getSourceFile().isDeclarationFile);
  }

  expr(node, params, depth = 0) {
    if (depth > MAX_INLINE_DEPTH * 4) return this.outside(node, "TooDeep");
    switch (node.kind) {
      case ts.SyntaxKind.ParenthesizedExpression:
      case ts.SyntaxKind.AsExpression:
      case ts.SyntaxKind.SatisfiesExpression:
      case ts.SyntaxKind.NonNullExpression:
        return this.expr(node.expression, params, depth);
      case ts.SyntaxKind.NumericLiteral:
        return { kind: "literal", value: encoded(Number(node.text)) };
      case ts.SyntaxKind.BigIntLiteral:
        return { kind: "literal", value: encoded(BigInt(node.text.slice(0, -1))) };
      case ts.SyntaxKind.StringLiteral:
      case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
        return { kind: "literal", value: node.text };
      case ts.SyntaxKind.TrueKeyword: return { kind: "literal", value: true };
      case ts.SyntaxKind.FalseKeyword: return { kind: "literal", value: false };
      case ts.SyntaxKind.NullKeyword: return { kind: "literal", value: null };
      case ts.SyntaxKind.Identifier: return this.identifier(node, params);
      case ts.SyntaxKind.PrefixUnaryExpression: {
        const op = { [ts.SyntaxKind.ExclamationToken]: "!", [ts.SyntaxKind.MinusToken]: "-", [ts.SyntaxKind.PlusToken]: "+" }[node.operator];
        if (!op) return this.outside(node);
        const operand = this.expr(node.operand, params, depth);
        if (op === "-" && operand.kind === "literal" && typeof operand.value === "number") {
          return { kind: "literal", value: encoded(-operand.value) };
        }
        if (op === "-" && operand.kind === "literal" && operand.value?.$ === "bigint") {
          return { kind: "literal", value: encoded(-BigInt(operand.value.v)) };
        }
        return { kind: "unary", op, operand };
      }
      case ts.SyntaxKind.BinaryExpression: {
        const op = BINARY_OPS.get(node.operatorToken.kind);
        if (!op) return this.outside(node, `BinaryExpression:${ts.tokenToString(node.operatorToken.kind)}`);
        return { kind: "binary", op, left: this.expr(node.left, params, depth), right: this.expr(node.right, params, depth) };
      }
      case ts.SyntaxKind.ConditionalExpression:
        return { kind: "conditional", test: this.expr(node.condition, params, depth), then: this.expr(node.whenTrue, params, depth), else: this.expr(node.whenFalse, params, depth) };
      case ts.SyntaxKind.PropertyAccessExpression:
        if (node.questionDotToken) return this.outside(node, "OptionalChain");
        return { kind: "field", object: this.expr(node.expression, params, depth), name: node.name.text };
      case ts.SyntaxKind.ElementAccessExpression:
        if (node.questionDotToken) return this.outside(node, "OptionalChain");
        return { kind: "index", object: this.expr(node.expression, params, depth), index: this.expr(node.argumentExpression, params, depth) };
      case ts.SyntaxKind.CallExpression: return this.call(node, params, depth);
      default:
        return this.outside(node);
    }
  }

  identifier(node, params) {
    if (params.has(node.text)) {
      const entry = params.get(node.text);
      if (entry.tree) return entry.tree;
      if (entry.local) return { kind: "local", name: entry.local };
      return { kind: "binder", index: entry.index, name: entry.name };
    }
    const constant = this.constantOf(node);
    if (constant && constant.kind === "literal") return constant;
    if (node.text === "undefined") return { kind: "literal", value: encoded(undefined) };
    if (node.text === "NaN" && this.isGlobal(node)) return { kind: "literal", value: encoded(NaN) };
    if (node.text === "Infinity" && this.isGlobal(node)) return { kind: "literal", value: encoded(Infinity) };
    const fn = this.moduleFunction(node);
    if (fn) {
      const resolved = this.resolveFunction(node);
      return { kind: "function", name: fn, ...(resolved && !resolved.inSpec ? { ref: resolved.id } : {}) };
    }
    return this.outside(node, "Identifier");
  }

  /** The declaration a name resolves to, when it is a `const` (or function) in a source file the program holds. */
  declarationOf(identifier) {
    const symbol = resolveAlias(this.checker, this.checker.getSymbolAtLocation(identifier));
    const decl = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
    if (!decl || decl.getSourceFile().isDeclarationFile) return null;
    return decl;
  }

  /** A named constant: `const MAX = 100`, `const RE = /^a+$/` (a literal tree, or a regex marker). */
  constantOf(identifier) {
    const decl = this.declarationOf(identifier);
    if (!decl || !ts.isVariableDeclaration(decl) || !decl.initializer) return null;
    if (!(ts.getCombinedNodeFlags(decl) & ts.NodeFlags.Const)) return null;
    let init = decl.initializer;
    while (ts.isParenthesizedExpression(init) || ts.isAsExpression(init) || ts.isSatisfiesExpression(init)) init = init.expression;
    if (init.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const slash = init.text.lastIndexOf("/");
      return { kind: "regex", pattern: init.text.slice(1, slash), flags: init.text.slice(slash + 1) };
    }
    const literalKinds = [ts.SyntaxKind.NumericLiteral, ts.SyntaxKind.StringLiteral, ts.SyntaxKind.NoSubstitutionTemplateLiteral,
      ts.SyntaxKind.TrueKeyword, ts.SyntaxKind.FalseKeyword, ts.SyntaxKind.BigIntLiteral];
    const isNegated = ts.isPrefixUnaryExpression(init) && init.operator === ts.SyntaxKind.MinusToken && literalKinds.includes(init.operand.kind);
    if (!literalKinds.includes(init.kind) && !isNegated) return null;
    return this.expr(init, new Map());
  }

  /** A helper predicate in the spec file (`const isValid = (v) => ...`, or a one-return function), inlined. */
  inlineHelper(node, params, depth) {
    if (depth > MAX_INLINE_DEPTH || !ts.isIdentifier(node.expression)) return null;
    const decl = this.declarationOf(node.expression);
    if (!decl || decl.getSourceFile().fileName !== this.specFile) return null;
    let fn = null;
    if (ts.isFunctionDeclaration(decl)) fn = decl;
    else if (ts.isVariableDeclaration(decl) && decl.initializer && (ts.getCombinedNodeFlags(decl) & ts.NodeFlags.Const)
      && (ts.isArrowFunction(decl.initializer) || ts.isFunctionExpression(decl.initializer))) fn = decl.initializer;
    if (!fn || !fn.body) return null;
    const body = singleExpression(fn.body);
    if (!body) return null;
    const bound = new Map();
    for (const [i, p] of fn.parameters.entries()) {
      if (!ts.isIdentifier(p.name) || p.dotDotDotToken) return null;
      const arg = node.arguments[i];
      bound.set(p.name.text, { tree: arg ? this.expr(arg, params, depth + 1) : { kind: "literal", value: encoded(undefined) } });
    }
    return this.expr(body, bound, depth + 1);
  }

  /** `xs.every((x) => ...)`: the body over a local standing for each element. */
  every(node, params, depth) {
    const callee = node.expression;
    const fn = node.arguments[0];
    if (node.arguments.length !== 1 || !(ts.isArrowFunction(fn) || ts.isFunctionExpression(fn))) return null;
    if (fn.parameters.length !== 1 || !ts.isIdentifier(fn.parameters[0].name)) return null;
    const body = singleExpression(fn.body);
    if (!body) return null;
    const name = fn.parameters[0].name.text;
    const inner = new Map(params);
    inner.set(name, { local: name });
    return { kind: "every", array: this.expr(callee.expression, params, depth), param: name, body: this.expr(body, inner, depth + 1) };
  }

  call(node, params, depth = 0) {
    const callee = node.expression;
    if (node.questionDotToken) return this.outside(node, "OptionalChain");
    const args = () => node.arguments.map((a) => this.expr(a, params, depth));
    if (ts.isIdentifier(callee) && !params.has(callee.text)) {
      // Bound to the declaration the compiler resolves the name to, never to a function found by its name.
      const fn = this.resolveFunction(callee);
      if (fn && !fn.inSpec) return { kind: "call", callee: fn.name, target: "module", ref: fn.id, args: args() };
      const inlined = this.inlineHelper(node, params, depth);
      if (inlined) return inlined;
      if (this.moduleFunction(callee)) return this.outside(node, "UnresolvedCall");
    }
    if (ts.isPropertyAccessExpression(callee) && !callee.questionDotToken && ts.isIdentifier(callee.expression)
        && !params.has(callee.expression.text) && this.isNamespace(callee.expression)) {
      const fn = this.resolveFunction(callee);
      if (fn && !fn.inSpec) return { kind: "call", callee: fn.name, target: "module", ref: fn.id, args: args() };
      return this.outside(node, "UnresolvedCall");
    }
    if (ts.isPropertyAccessExpression(callee) && callee.name.text === "every" && !callee.questionDotToken) {
      const every = this.every(node, params, depth);
      if (every) return every;
    }
    if (ts.isPropertyAccessExpression(callee) && callee.name.text === "test" && node.arguments.length === 1
        && ts.isIdentifier(callee.expression) && !params.has(callee.expression.text)) {
      const constant = this.constantOf(callee.expression);
      if (constant?.kind === "regex") {
        return { kind: "regex_test", pattern: constant.pattern, flags: constant.flags, argument: this.expr(node.arguments[0], params, depth) };
      }
    }
    if (ts.isPropertyAccessExpression(callee)) {
      const object = callee.expression;
      if (ts.isIdentifier(object) && this.isGlobal(object)) {
        const name = `${object.text}.${callee.name.text}`;
        if (BUILTIN_CALLS.has(name)) return { kind: "call", callee: name, target: "builtin", args: args() };
      }
      if (object.kind === ts.SyntaxKind.RegularExpressionLiteral && callee.name.text === "test" && node.arguments.length === 1) {
        const text = object.text;
        const slash = text.lastIndexOf("/");
        return { kind: "regex_test", pattern: text.slice(1, slash), flags: text.slice(slash + 1), argument: this.expr(node.arguments[0], params) };
      }
    }
    return this.outside(node, "CallExpression");
  }

  claim(fnNode, binders) {
    if (!fnNode || !(ts.isArrowFunction(fnNode) || ts.isFunctionExpression(fnNode))) {
      return fnNode ? this.outside(fnNode, "NotAnArrowFunction") : null;
    }
    const params = new Map();
    for (const [i, p] of fnNode.parameters.entries()) {
      if (!ts.isIdentifier(p.name)) return this.outside(p, "DestructuringParameter");
      if (p.dotDotDotToken) return this.outside(p, "RestParameter");
      params.set(p.name.text, { index: i, name: binders[i]?.name ?? p.name.text });
    }
    const body = singleExpression(fnNode.body);
    if (!body) return this.outside(fnNode.body, "Block");
    return this.expr(body, params);
  }

  // ---- properties --------------------------------------------------------

  combinator(call) {
    if (!ts.isCallExpression(call)) return null;
    const symbol = resolveAlias(this.checker, this.checker.getSymbolAtLocation(call.expression));
    const decl = symbol?.declarations?.[0];
    if (!decl || path.resolve(decl.getSourceFile().fileName) !== specDts) return null;
    return symbol.name === "forall" || symbol.name === "total" ? symbol.name : null;
  }

  /** The signature a claim quantifies over: the last overload, which `Parameters<F>` (and so tsc) takes. */
  signatureOf(fnArg) {
    const signatures = this.checker.getTypeAtLocation(fnArg).getCallSignatures();
    if (signatures.length === 0) return null;
    const signature = signatures[signatures.length - 1];
    const overload = signatures.length > 1
      ? { chosen: this.checker.signatureToString(signature, undefined, ts.TypeFormatFlags.NoTruncation), count: signatures.length }
      : null;
    return { signature, overload };
  }

  binders(fnArg) {
    const found = this.signatureOf(fnArg);
    if (!found) return null;
    return found.signature.getParameters().map((p) => {
      const decl = p.valueDeclaration;
      const optional = Boolean(decl && (decl.questionToken || decl.initializer));
      if (decl && decl.dotDotDotToken) {
        return { name: p.name, optional, type: { kind: "unsupported", name: "rest", reason: "rest parameters are not drawn" } };
      }
      return { name: p.name, optional, type: this.convert(this.checker.getTypeOfSymbolAtLocation(p, fnArg)) };
    });
  }

  sample(node) {
    if (!node) return null;
    if (!ts.isObjectLiteralExpression(node)) return { outside: textOf(node) };
    const out = {};
    for (const prop of node.properties) {
      if (ts.isPropertyAssignment(prop) && ts.isIdentifier(prop.name) && ts.isNumericLiteral(prop.initializer)) {
        out[prop.name.text] = Number(prop.initializer.text);
      }
    }
    return out;
  }

  /** The numbers the claim's code is written with (constants.mjs), when there are any. */
  constants(roots) {
    const values = sourceConstants(this.checker, roots);
    return values.length > 0 ? { constants: values.map((v) => encoded(v)) } : {};
  }

  property(exportName, decl) {
    const line = lineOf(decl);
    const init = ts.isVariableDeclaration(decl) ? decl.initializer : undefined;
    const which = init ? this.combinator(init) : null;
    if (!which) return { skipped: { name: exportName, line, reason: "not built by forall or total from eutaxy/spec" } };
    const fnArg = init.arguments[0];
    const binders = fnArg ? this.binders(fnArg) : null;
    if (!binders) return { skipped: { name: exportName, line, combinator: which, reason: "its first argument is not a function the compiler resolved" } };
    const overload = this.signatureOf(fnArg).overload;
    const fnName = ts.isIdentifier(fnArg) ? (this.moduleFunction(fnArg) ?? fnArg.text) : textOf(fnArg);
    const resolved = ts.isIdentifier(fnArg) || ts.isPropertyAccessExpression(fnArg) ? this.resolveFunction(fnArg) : null;
    const ref = resolved && !resolved.inSpec ? { ref: resolved.id } : {};
    const fnSymbol = ts.isIdentifier(fnArg) ? resolveAlias(this.checker, this.checker.getSymbolAtLocation(fnArg)) : null;
    const moduleFile = fnSymbol?.valueDeclaration?.getSourceFile().fileName ?? null;
    if (which === "total") {
      return { property: { kind: "total", name: exportName, function: fnName, binders, line, ...(overload ? { overload } : {}), ...ref }, moduleFile };
    }
    const options = init.arguments[1];
    if (!options || !ts.isObjectLiteralExpression(options)) {
      return { skipped: { name: exportName, line, combinator: which, reason: "forall's options are not an object literal" } };
    }
    const get = (key) => {
      const p = options.properties.find((q) => q.name && ts.isIdentifier(q.name) && q.name.text === key);
      if (!p) return undefined;
      return ts.isPropertyAssignment(p) ? p.initializer : p;
    };
    const ensuresNode = get("ensures");
    if (!ensuresNode) return { skipped: { name: exportName, line, combinator: which, reason: "forall without ensures" } };
    const whenNode = get("when");
    const timeoutNode = get("timeoutMs");
    const timeoutMs = timeoutNode && ts.isNumericLiteral(timeoutNode) ? Number(timeoutNode.text) : undefined;
    if (timeoutMs > TIMEOUT_MS_MAX) {
      const reason = `timeoutMs: ${timeoutNode.getText()} is more than ${TIMEOUT_MS_MAX} ms, the longest a timer can wait (about 24.8 days); give a smaller one`;
      return { skipped: { name: exportName, line, combinator: which, reason } };
    }
    return {
      property: {
        kind: "forall", name: exportName, function: fnName, binders,
        when: whenNode ? this.claim(whenNode, binders) : null,
        ensures: this.claim(ensuresNode, binders),
        sample: this.sample(get("sample")), line,
        ...(timeoutMs > 0 ? { timeoutMs } : {}),
        ...this.constants([fnArg, whenNode, ensuresNode]),
        ...(overload ? { overload } : {}),
        ...ref,
      },
      moduleFile,
    };
  }

  read() {
    const sf = this.program.getSourceFile(this.specFile);
    const diagnostics = ts.getPreEmitDiagnostics(this.program, sf).map((d) => formatDiagnostic(d));
    const moduleSymbol = this.checker.getSymbolAtLocation(sf);
    const properties = [], skipped = [];
    let moduleFile = null;
    const exports = moduleSymbol ? this.checker.getExportsOfModule(moduleSymbol) : [];
    const entries = [];
    for (const symbol of exports) {
      const target = resolveAlias(this.checker, symbol);
      // Types and interfaces are not exports at run time, so they are not properties either.
      if (!(target.flags & ts.SymbolFlags.Value)) continue;
      const decl = target.declarations?.[0] ?? symbol.declarations?.[0];
      if (decl) entries.push({ name: symbol.name, decl });
    }
    entries.sort((a, b) => a.decl.pos - b.decl.pos);
    for (const { name, decl } of entries) {
      const read = this.property(name, decl);
      if (read.skipped) skipped.push(read.skipped);
      else {
        properties.push(read.property);
        moduleFile = moduleFile ?? read.moduleFile;
      }
    }
    const sources = this.program.getSourceFiles()
      .filter((f) => !f.isDeclarationFile && !f.fileName.split(/[\\/]/).includes("node_modules"))
      .map((f) => path.resolve(f.fileName))
      .filter((f) => f !== path.resolve(this.specFile))
      .sort();
    // The bodies the engines translate (bodies.mjs); TESTED never needs them.
    const functions = readFunctions(this, properties);
    const globalWrites = this.globalWrites();
    return { kind: "spec_module", spec: this.specFile, module: moduleFile, properties, skipped, diagnostics, sources, functions,
             ...(globalWrites.length ? { globalWrites } : {}) };
  }
}

/** A type's flags in words ("symbol", "a template literal type"), never as a number. */
function describeFlags(flags) {
  const words = {
    ESSymbol: "symbol", UniqueESSymbol: "a unique symbol", StringMapping: "a string mapping type (Uppercase<...> and the like)",
    Conditional: "a conditional type", Substitution: "a substitution type", Index: "a keyof type",
    IndexedAccess: "an indexed access type", NonPrimitive: "object (the non-primitive type)", Enum: "an enum type",
  };
  const names = Object.keys(ts.TypeFlags).filter((k) => Number.isNaN(Number(k)) && (flags & ts.TypeFlags[k]) === ts.TypeFlags[k]
    && ts.TypeFlags[k] !== 0 && (ts.TypeFlags[k] & (ts.TypeFlags[k] - 1)) === 0);
  const said = names.map((n) => words[n] ?? `the ${n} type`);
  return said.length ? said.join(" and ") : "this type";
}

/** An arrow's or function's body as one expression (`=> e`, or `{ return e; }`), else null. */
function singleExpression(body) {
  if (!ts.isBlock(body)) return body;
  if (body.statements.length !== 1 || !ts.isReturnStatement(body.statements[0]) || !body.statements[0].expression) return null;
  return body.statements[0].expression;
}

/** A literal's value in the spec value encoding; every literal the reader writes is one the encoding carries. */
function encoded(value) {
  const result = exact(value, "a literal");
  if (!result.ok) throw new Error(result.why);
  return result.value;
}

function formatDiagnostic(d) {
  const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
  if (!d.file || d.start === undefined) return message;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `${path.basename(d.file.fileName)}(${line + 1},${character + 1}): TS${d.code}: ${message}`;
}

function readOne(specFile, oldProgram) {
  const file = path.resolve(specFile);
  if (!fs.existsSync(file)) return { result: { kind: "read_error", spec: file, message: "no such file" } };
  const { options, root } = baseOptions(file);
  const program = ts.createProgram({ rootNames: [file], options, host: makeHost(options), oldProgram });
  return { result: new Reader(program, file, root).read(), program };
}

let previous;
for (const specFile of process.argv.slice(2)) {
  let line;
  try {
    const { result, program } = readOne(specFile, previous);
    previous = program ?? previous;
    line = result;
  } catch (error) {
    line = { kind: "read_error", spec: path.resolve(specFile), message: String(error?.stack ?? error) };
  }
  process.stdout.write(JSON.stringify(line) + "\n");
}
