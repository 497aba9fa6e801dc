"""Names a notebook code cell binds and reads, from its syntax tree (shared by the exercise and re-run tests)."""

from __future__ import annotations

import ast
import builtins

from IPython.core.inputtransformer2 import TransformerManager

IGNORED_NAMES = {"_"}  # a throwaway


def parse_cell(source: str) -> ast.Module:
    """A code cell's syntax tree, IPython magics and shell escapes translated to Python first."""
    return ast.parse(TransformerManager().transform_cell(source))


class _TopLevelBindings(ast.NodeVisitor):
    """Names a cell binds in the global namespace: assignments (also unpacking, augmented, annotated), ``for`` and
    ``with ... as`` targets, ``:=`` (also inside a comprehension), ``def``, ``class``, ``import``, ``except ... as``;
    not the locals of a function, class body, lambda or comprehension."""

    def __init__(self):
        self.names: set[str] = set()

    def _target(self, node):
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                self.names.add(sub.id)

    def visit_FunctionDef(self, node):
        self.names.add(node.name)
        for expr in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if expr is not None:
                self.visit(expr)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.names.add(node.name)

    def visit_Lambda(self, node):
        pass

    def _comprehension(self, node):
        for sub in ast.walk(node):  # only := escapes a comprehension
            if isinstance(sub, ast.NamedExpr):
                self._target(sub.target)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Import(self, node):
        for alias in node.names:
            self.names.add(alias.asname or alias.name.split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node):
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Store):
            self.names.add(node.id)


def bound_names(source: str) -> set[str]:
    """Top-level names a code cell binds: what lands in the global namespace (see ``_TopLevelBindings``)."""
    tree = parse_cell(source)
    visitor = _TopLevelBindings()
    visitor.visit(tree)
    return visitor.names - IGNORED_NAMES


def read_names(source: str) -> set[str]:
    """Global names a code cell reads: every name loaded anywhere in it, less every name it binds anywhere (its own
    top-level names, function locals and parameters, comprehension variables) and the builtins. An over-approximation
    of what it needs from earlier cells is not the aim; missing none of them is."""
    tree = parse_cell(source)
    loaded, stored = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, ast.arg):
            stored.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stored.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stored.update(a.asname or a.name.split(".")[0] for a in node.names)
    return loaded - stored - set(dir(builtins)) - IGNORED_NAMES
