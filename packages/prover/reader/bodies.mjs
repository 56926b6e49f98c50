// Function bodies into SpecIR, for the engines to translate.
//
// The spec reader (reader.mjs) reads a spec file's properties; this module
// reads the bodies of the functions those properties name, and of the module
// functions they call, into the same expression tree (see docs/specs.md,
// "Function bodies"). The subset: const bindings, if/else with early returns,
// return, the conditional operator, arithmetic and comparison, the builtins
// the claim reader names, string length and indexing, record literals, field
// reads, null and tag tests, array length and index reads, module-level
// constants built from literals, and calls to functions of any source file.
// Every call is bound to the declaration the compiler resolves it to (the
// reader's resolveFunction) and every body is named by its declaration, so
// two functions of one name are never one body. Anything else is an `outside` node with the construct and its line, where it
// stands, so an engine refuses exactly it and never guesses.

import { createRequire } from "node:module";

// The same typescript module instance the reader loaded (require caches it).
const ts = createRequire(import.meta.url)(process.env.EUTAXY_TYPESCRIPT);

/** A body larger than this (after early returns are unfolded) is refused, never read at any cost. */
const MAX_BODY_NODES = 4000;
/** Calls followed from the properties' functions at most (a bound on the walk). */
const MAX_FUNCTIONS = 64;

const IGNORE_COMMENT = /@ts-(ignore|expect-error|nocheck)/;

/**
 * The functions `properties` name and the functions they call, transitively, each read, in whatever
 * source file the compiler resolved them to. `reader` is the spec file's Reader: its expression
 * reader, type converter and declaration resolver are used as they are.
 */
export function readFunctions(reader, properties) {
  const bodies = new BodyReader(reader);
  const queue = [];
  for (const prop of properties) {
    if (prop.ref) queue.push(prop.ref);
    for (const tree of [prop.when, prop.ensures]) if (tree) collectCalls(tree, queue);
  }
  const seen = new Set();
  const out = [];
  while (queue.length > 0 && out.length < MAX_FUNCTIONS) {
    const ref = queue.shift();
    if (seen.has(ref)) continue;
    seen.add(ref);
    const found = reader.resolved?.get(ref);
    if (!found) continue;
    const def = bodies.read(found);
    out.push(def);
    collectCalls(def.body, queue);
  }
  return out;
}

function collectCalls(tree, queue) {
  if (!tree || typeof tree !== "object") return;
  if (Array.isArray(tree)) {
    for (const item of tree) collectCalls(item, queue);
    return;
  }
  if (tree.kind === "call" && tree.target === "module" && tree.ref) queue.push(tree.ref);
  for (const [key, value] of Object.entries(tree)) {
    if (key !== "type" && value && typeof value === "object") collectCalls(value, queue);
  }
}

class BodyReader {
  constructor(reader) {
    this.reader = reader;
    this.checker = reader.checker;
    this.diagnostics = new Map();
    this.reading = new Set();
    // The claim reader recurses through `this.expr`, `this.call` and `this.identifier`:
    // seen through this view, its children are read as bodies are.
    this.view = Object.create(reader, {
      expr: { value: (n, s, d) => this.expr(n, s, d) },
      call: { value: (n, s, d) => this.call(n, s, d) },
      identifier: { value: (n, s) => this.identifier(n, s) },
    });
  }

  /** One resolved function's body (`found` is the reader's resolveFunction answer). */
  read({ id, name, file, node, fn }) {
    const line = lineOf(node);
    const named = { id, file };
    const signature = this.checker.getSignatureFromDeclaration(fn);
    const params = fn.parameters.map((p) => ({
      name: ts.isIdentifier(p.name) ? p.name.text : p.name.getText(), optional: Boolean(p.questionToken || p.initializer),
      type: this.reader.convert(this.checker.getTypeAtLocation(p)),
    }));
    const returns = signature ? this.reader.convert(this.checker.getReturnTypeOfSignature(signature))
      : { kind: "unsupported", name: "?", reason: "no signature" };
    const refused = this.refusal(node, fn);
    if (refused) return { kind: "function_def", name, params, returns, body: refused, line, ...named };
    const scope = new Map();
    for (const [index, p] of fn.parameters.entries()) scope.set(p.name.text, { index, name: p.name.text });
    this.locals = new Map();
    this.nodes = 0;
    let body;
    try {
      body = ts.isBlock(fn.body) ? this.block(fn.body.statements, 0, scope, () => undefinedLiteral())
        : this.expr(fn.body, scope);
    } catch (error) {
      if (!(error instanceof TooLarge)) throw error;
      body = this.outside(fn, "BodyTooLarge");
    }
    return { kind: "function_def", name, params, returns, body, line, ...named };
  }

  /** Why the whole function is outside the subset, as one outside node; null when it is not. */
  refusal(node, fn) {
    if (fn.typeParameters?.length) return this.outside(fn, "TypeParameters");
    if (fn.asteriskToken) return this.outside(fn, "GeneratorFunction");
    if (fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)) return this.outside(fn, "AsyncFunction");
    if (!fn.body) return this.outside(fn, "NoBody");
    for (const p of fn.parameters) {
      if (!ts.isIdentifier(p.name)) return this.outside(p, "DestructuringParameter");
      if (p.dotDotDotToken) return this.outside(p, "RestParameter");
      if (p.initializer) return this.outside(p, "DefaultParameter");
    }
    const sf = node.getSourceFile();
    if (IGNORE_COMMENT.test(sf.text.slice(node.getFullStart(), node.getEnd()))) {
      return this.outside(node, "TsIgnoreComment");
    }
    const options = this.reader.program.getCompilerOptions();
    if (!(options.strict || options.strictNullChecks) || options.strictNullChecks === false) {
      return this.outside(node, "NotStrictNullChecks");
    }
    if (!this.diagnostics.has(sf)) this.diagnostics.set(sf, ts.getPreEmitDiagnostics(this.reader.program, sf));
    const errors = this.diagnostics.get(sf)
      .filter((d) => d.start !== undefined && d.start >= node.getStart(sf) && d.start < node.getEnd());
    if (errors.length > 0) {
      const message = ts.flattenDiagnosticMessageText(errors[0].messageText, " ");
      return { kind: "outside", construct: "CompilerError", line: sf.getLineAndCharacterOfPosition(errors[0].start).line + 1,
               text: `TS${errors[0].code}: ${message}`.slice(0, 120) };
    }
    return null;
  }

  outside(node, construct) {
    return this.reader.outside(node, construct);
  }

  count() {
    this.nodes += 1;
    if (this.nodes > MAX_BODY_NODES) throw new TooLarge();
  }

  // ---- statements ----------------------------------------------------------------
  //
  // A block is read with a continuation: `rest()` reads whatever follows the
  // block in its own scope, so `if (c) { ... } rest` is read as a conditional
  // whose branches both continue with `rest` unless they returned first.

  block(statements, i, scope, rest) {
    this.count();
    if (i >= statements.length) return rest();
    const statement = statements[i];
    const next = (s) => this.block(statements, i + 1, s, rest);
    switch (statement.kind) {
      case ts.SyntaxKind.EmptyStatement:
        return next(scope);
      case ts.SyntaxKind.ReturnStatement:
        return statement.expression ? this.expr(statement.expression, scope) : undefinedLiteral();
      case ts.SyntaxKind.Block:
        return this.block(statement.statements, 0, scope, () => next(scope));
      case ts.SyntaxKind.IfStatement: {
        const after = () => next(scope);
        const branch = (s) => (s === undefined ? after()
          : ts.isBlock(s) ? this.block(s.statements, 0, scope, after) : this.block([s], 0, scope, after));
        return { kind: "conditional", test: this.expr(statement.expression, scope),
                 then: branch(statement.thenStatement), else: branch(statement.elseStatement) };
      }
      case ts.SyntaxKind.VariableStatement:
        return this.constants(statement, scope, next);
      case ts.SyntaxKind.ExpressionStatement:
        return this.outside(statement, isAssignment(statement.expression) ? "Assignment" : "ExpressionStatement");
      default:
        return this.outside(statement);
    }
  }

  constants(statement, scope, next) {
    const list = statement.declarationList;
    if (!(list.flags & ts.NodeFlags.Const)) {
      return this.outside(statement, list.flags & ts.NodeFlags.Let ? "LetDeclaration" : "VarDeclaration");
    }
    const bindings = [];
    let inner = scope;
    for (const decl of list.declarations) {
      if (!ts.isIdentifier(decl.name)) return this.outside(decl, "DestructuringDeclaration");
      const value = this.expr(decl.initializer, inner);
      const unique = this.uniqueName(decl.name.text);
      inner = new Map(inner);
      inner.set(decl.name.text, { local: unique });
      bindings.push({ name: unique, value });
    }
    let body = next(inner);
    for (const { name, value } of bindings.reverse()) body = { kind: "let", name, value, body };
    return body;
  }

  uniqueName(name) {
    const n = (this.locals.get(name) ?? 0) + 1;
    this.locals.set(name, n);
    return n === 1 ? name : `${name}_${n}`;
  }

  // ---- expressions ---------------------------------------------------------------
  //
  // The claim reader's expression reader, with what only bodies need: locals,
  // record literals, module constants, and calls checked to stay in the module.

  expr(node, scope, depth = 0) {
    this.count();
    switch (node.kind) {
      case ts.SyntaxKind.ObjectLiteralExpression:
        return this.record(node, scope);
      case ts.SyntaxKind.NonNullExpression:
        return this.outside(node, "NonNullAssertion");
      case ts.SyntaxKind.ArrowFunction:
      case ts.SyntaxKind.FunctionExpression:
        return this.outside(node);
      case ts.SyntaxKind.BinaryExpression:
        if (isAssignment(node)) return this.outside(node, "Assignment");
        break;
      case ts.SyntaxKind.PrefixUnaryExpression:
      case ts.SyntaxKind.PostfixUnaryExpression:
        if (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken) {
          return this.outside(node, "Assignment");
        }
        break;
      default:
        break;
    }
    return this.reader.expr.call(this.view, node, scope, depth);
  }

  identifier(node, scope) {
    const entry = scope.get(node.text);
    if (entry?.local) return { kind: "local", name: entry.local };
    if (entry) return { kind: "binder", index: entry.index, name: entry.name };
    const constant = this.moduleConstant(node);
    if (constant) return constant;
    return this.reader.identifier(node, new Map());
  }

  /** A module-level const of a number, boolean or string built from literals and operators, in any source
   *  file (imported ones too): read as its value. */
  moduleConstant(node) {
    let symbol = this.checker.getSymbolAtLocation(node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    const decl = symbol?.valueDeclaration;
    if (!decl || !ts.isVariableDeclaration(decl) || !decl.initializer) return null;
    if (decl.getSourceFile().isDeclarationFile) return null;
    if (!(decl.parent.flags & ts.NodeFlags.Const) || !ts.isSourceFile(decl.parent.parent.parent)) return null;
    if (ts.isArrowFunction(decl.initializer) || ts.isFunctionExpression(decl.initializer)) return null;
    if (this.reading.has(decl)) return this.outside(node, "ModuleConstant");
    this.reading.add(decl);
    const value = this.expr(decl.initializer, new Map());
    this.reading.delete(decl);
    return constantTree(value) ? value : this.outside(node, "ModuleConstant");
  }

  record(node, scope) {
    const fields = [];
    for (const prop of node.properties) {
      if (ts.isPropertyAssignment(prop) && (ts.isIdentifier(prop.name) || ts.isStringLiteral(prop.name))) {
        fields.push({ name: prop.name.text, value: this.expr(prop.initializer, scope) });
      } else if (ts.isShorthandPropertyAssignment(prop)) {
        fields.push({ name: prop.name.text, value: this.identifier(prop.name, scope) });
      } else {
        return this.outside(prop, ts.isSpreadAssignment(prop) ? "SpreadAssignment" : ts.SyntaxKind[prop.kind]);
      }
    }
    if (fields.some((f) => f.name === "__proto__")) return this.outside(node, "ProtoField");
    const type = this.checker.getContextualType(node) ?? this.checker.getTypeAtLocation(node);
    return { kind: "record", fields, type: this.reader.convert(type) };
  }

  call(node, scope, depth = 0) {
    const callee = node.expression;
    if (node.questionDotToken) return this.outside(node, "OptionalChain");
    if (ts.isIdentifier(callee) && !scope.has(callee.text)) {
      // The declaration the compiler resolves the name to, in whichever file it is; anything else is named.
      const fn = this.reader.resolveFunction(callee);
      if (fn) {
        return { kind: "call", callee: fn.name, target: "module", ref: fn.id,
                 args: node.arguments.map((a) => this.expr(a, scope)) };
      }
      return this.outside(node, "UnresolvedCall");
    }
    return this.reader.call.call(this.view, node, scope, depth);
  }
}

class TooLarge extends Error {}

function isAssignment(node) {
  return ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment
    && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
}

function constantTree(tree) {
  if (!tree || typeof tree !== "object") return true;
  if (["binder", "local", "function", "call", "outside", "field", "index", "record", "regex_test"].includes(tree.kind)) {
    return false;
  }
  return Object.values(tree).every((v) => typeof v !== "object" || v === null || tree.kind === "literal" || constantTree(v));
}

function undefinedLiteral() {
  return { kind: "literal", value: { $: "undefined" } };
}

function lineOf(node) {
  const sf = node.getSourceFile();
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}
