// The numbers a claim's code is written with, for the TESTED rung to draw near.
//
// A claim false only at one integer next to a constant of the module (q = 249
// beside a limit of 250) is missed by draws that do not know the constant. This
// walk starts at a property's function and its when/ensures arrows and follows
// every identifier the TypeScript checker resolves to a declaration in the
// user's files (through aliases, re-exports and default exports): function
// bodies, module constants, enum members and the object literals constants are
// built of. It collects each numeric literal it meets and each constant's value
// where the initializer folds to a number (`60 * SECOND`). What is derived from
// these numbers (their negation, neighbours, halves, tenfolds) is Python's rule
// (eutaxy.prover.domains.near_constants); this only reads the source.

import { createRequire } from "node:module";

// The same typescript module instance the reader loaded (require caches it).
const ts = createRequire(import.meta.url)(process.env.EUTAXY_TYPESCRIPT);

/** Declarations followed from one property at most (a bound on the walk). */
const MAX_DECLARATIONS = 256;
/** Distinct numbers kept per property, in the order the walk meets them. */
export const MAX_CONSTANTS = 48;
/** Constants folded through other constants at most this deep. */
const MAX_FOLD_DEPTH = 8;

function isUserFile(sf) {
  return Boolean(sf) && !sf.isDeclarationFile && !sf.fileName.split(/[\\/]/).includes("node_modules");
}

function resolve(checker, node) {
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol;
}

/** The declaration an identifier names in the user's files, else null. */
function declarationOf(checker, node) {
  const symbol = resolve(checker, node);
  const decl = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
  return decl && isUserFile(decl.getSourceFile()) ? decl : null;
}

/** The number `node` denotes when it is built of literals and constants, else undefined. */
function fold(checker, node, depth = 0) {
  if (depth > MAX_FOLD_DEPTH) return undefined;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression?.(node)) {
    return fold(checker, node.expression, depth);
  }
  if (ts.isPrefixUnaryExpression(node)) {
    const v = fold(checker, node.operand, depth);
    if (v === undefined) return undefined;
    if (node.operator === ts.SyntaxKind.MinusToken) return -v;
    if (node.operator === ts.SyntaxKind.PlusToken) return v;
    return undefined;
  }
  if (ts.isBinaryExpression(node)) {
    const a = fold(checker, node.left, depth);
    const b = a === undefined ? undefined : fold(checker, node.right, depth);
    if (b === undefined) return undefined;
    switch (node.operatorToken.kind) {
      case ts.SyntaxKind.PlusToken: return a + b;
      case ts.SyntaxKind.MinusToken: return a - b;
      case ts.SyntaxKind.AsteriskToken: return a * b;
      case ts.SyntaxKind.SlashToken: return a / b;
      case ts.SyntaxKind.PercentToken: return a % b;
      case ts.SyntaxKind.AsteriskAsteriskToken: return a ** b;
      default: return undefined;
    }
  }
  if (ts.isIdentifier(node)) {
    const decl = declarationOf(checker, node);
    if (decl && ts.isVariableDeclaration(decl) && decl.initializer && decl.parent.flags & ts.NodeFlags.Const) {
      return fold(checker, decl.initializer, depth + 1);
    }
  }
  return undefined;
}

/**
 * The distinct finite, non-zero numbers the code reachable from `roots` is written with,
 * in the order the walk meets them (the roots' own first, then each declaration they name).
 */
export function sourceConstants(checker, roots) {
  const found = new Map();
  const add = (value) => {
    if (typeof value === "number" && Number.isFinite(value) && value !== 0 && found.size < MAX_CONSTANTS) {
      found.set(value, true);
    }
  };
  const seen = new Set();
  const queue = [...roots.filter(Boolean)];
  let followed = 0;
  const visit = (node) => {
    if (ts.isNumericLiteral(node)) {
      add(Number(node.text));
      return;
    }
    if (ts.isIdentifier(node)) {
      const decl = declarationOf(checker, node);
      // A parameter has no value here; a type holds no number a claim computes with.
      if (decl && !seen.has(decl) && followed < MAX_DECLARATIONS && !ts.isParameter(decl)
        && !ts.isTypeAliasDeclaration(decl) && !ts.isInterfaceDeclaration(decl) && !ts.isPropertySignature(decl)) {
        seen.add(decl);
        followed += 1;
        queue.push(decl);
      }
      return;
    }
    ts.forEachChild(node, visit);
  };
  while (queue.length > 0 && found.size < MAX_CONSTANTS) {
    const node = queue.shift();
    if (ts.isVariableDeclaration(node)) {
      if (node.initializer) {
        add(fold(checker, node.initializer));
        visit(node.initializer);
      }
    } else if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node)
      || ts.isFunctionExpression(node)) {
      if (node.body) visit(node.body);
    } else if (ts.isEnumMember(node) || ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node)) {
      if (node.initializer) visit(node.initializer);
    } else if (ts.isImportSpecifier(node) || ts.isImportClause(node) || ts.isNamespaceImport(node)
      || ts.isSourceFile(node) || ts.isModuleDeclaration(node)) {
      // A module object: its members are followed where they are named, not all at once.
    } else {
      visit(node);
    }
  }
  return [...found.keys()];
}
