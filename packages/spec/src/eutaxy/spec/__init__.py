"""eutaxy.spec: SpecIR, the plain data a spec file is read into.

Spec files are TypeScript (``domain.props.ts`` beside ``domain.ts``) and import
``forall``/``total`` from the JavaScript module ``eutaxy/spec`` shipped in this
package's ``js/`` folder (see :func:`js_module_dir`). The prover's reader turns
them into the types here; nothing in this package runs Node.
"""

from pathlib import Path

from ._expr import (EXPR_KINDS, Binary, BinderRef, Call, Conditional, Every, Expr, FieldRead, FunctionRef,
                    IndexRead, Let, Literal, Local, Outside, RecordLiteral, RegexTest, Unary, children,
                    expr_from_data, outside_nodes)
from ._property import (Binder, ForallProperty, FunctionDef, GlobalWrite, NotAProperty, Property, SpecModule,
                        TotalProperty, property_from_data)
from ._types import (TYPE_KINDS, ArrayType, BigIntType, BooleanType, Field, LiteralType,
                     LiteralUnionType, NullableType, NumberType, RecordType, SpecType, StringType,
                     TaggedUnionType, TemplateType, UnionType, UnsupportedType, Variant, type_from_data)


def js_module_dir() -> Path:
    """The folder holding the ``eutaxy/spec`` JavaScript module (``package.json``, ``spec.js``, ``spec.d.ts``).

    In a source checkout it is ``packages/spec/js``; a wheel ships it as package
    data at the same place relative to this file's package.
    """
    here = Path(__file__).resolve().parent
    for candidate in (here / "js", here.parents[2] / "js"):
        if (candidate / "spec.js").is_file():
            return candidate
    raise FileNotFoundError(f"eutaxy/spec JavaScript module not found beside {here}")


__all__ = [
    "ArrayType", "BigIntType", "Binary", "Binder", "BinderRef", "BooleanType", "Call",
    "Conditional", "EXPR_KINDS", "Every", "Expr", "Field", "FieldRead", "ForallProperty", "FunctionDef",
    "FunctionRef", "GlobalWrite", "IndexRead", "Let", "Literal", "LiteralType", "Local", "LiteralUnionType", "NotAProperty",
    "NullableType", "NumberType", "Outside", "Property", "RecordLiteral", "RecordType", "RegexTest", "SpecModule",
    "SpecType", "StringType", "TYPE_KINDS", "TaggedUnionType", "TemplateType", "TotalProperty", "Unary",
    "UnionType", "UnsupportedType", "Variant", "children", "expr_from_data", "js_module_dir", "outside_nodes",
    "property_from_data", "type_from_data",
]
