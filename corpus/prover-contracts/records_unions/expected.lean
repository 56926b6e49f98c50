-- Lean 4 emitted by Eutaxy's prover_lean from domain.props.ts (module domain.ts). Do not edit: it is written anew.
-- withdraw is not emitted: type nullable at line 9 in withdraw (Account | null: nullable types are the SMT engine's first; the Lean engine does not take them yet)
-- initial is not emitted: string length at line 25 in initial (JavaScript counts UTF-16 code units, Lean characters, and the two disagree beyond the basic plane)

-- onlyAccountsPay is not emitted: type nullable at line 9 in withdraw (Account | null: nullable types are the SMT engine's first; the Lean engine does not take them yet)
-- neverOverdrawn is not emitted: type nullable at line 9 in withdraw (Account | null: nullable types are the SMT engine's first; the Lean engine does not take them yet)
-- refusalsSayWhy is not emitted: type nullable at line 9 in withdraw (Account | null: nullable types are the SMT engine's first; the Lean engine does not take them yet)
-- initialIsOneUnit is not emitted: string length at line 25 in initial (JavaScript counts UTF-16 code units, Lean characters, and the two disagree beyond the basic plane)
