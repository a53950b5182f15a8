"""Task banks built from the question generators (DESIGN.md "Configs"): Exp3 chained composites,
Exp9 two-part work tasks (fixed and tailored) and Exp2 hidden-dependency transfer tasks."""
