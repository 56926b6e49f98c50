-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
structure R_Sku where
  x_prefix : String
  x_serial : Int

-- parseSku is not emitted: DestructuringDeclaration at line 7 in parseSku ([prefix, digits] = text.split("-"))
-- topLevel is not emitted: CallExpression at line 13 in topLevel (address.slice(address.lastIndexOf(".") + 1))

-- skuParses is not emitted: DestructuringDeclaration at line 7 in parseSku ([prefix, digits] = text.split("-"))
-- topLevelKept is not emitted: CallExpression at line 13 in topLevel (address.slice(address.lastIndexOf(".") + 1))
