"""The chemical elements 1-100 (IUPAC names, symbols), for the factual components of chained tasks.

Atomic numbers are the one factual table whose entries are both stable and numeric, which is what a
chain link needs: a factual step can produce a number (the atomic number of iron) or consume one
(the element with atomic number 26).
"""

from __future__ import annotations

# (name, symbol), index = atomic number - 1. IUPAC spellings; the common variants are aliases below.
_TABLE: tuple[tuple[str, str], ...] = (
    ("hydrogen", "H"), ("helium", "He"), ("lithium", "Li"), ("beryllium", "Be"), ("boron", "B"),
    ("carbon", "C"), ("nitrogen", "N"), ("oxygen", "O"), ("fluorine", "F"), ("neon", "Ne"),
    ("sodium", "Na"), ("magnesium", "Mg"), ("aluminium", "Al"), ("silicon", "Si"), ("phosphorus", "P"),
    ("sulfur", "S"), ("chlorine", "Cl"), ("argon", "Ar"), ("potassium", "K"), ("calcium", "Ca"),
    ("scandium", "Sc"), ("titanium", "Ti"), ("vanadium", "V"), ("chromium", "Cr"), ("manganese", "Mn"),
    ("iron", "Fe"), ("cobalt", "Co"), ("nickel", "Ni"), ("copper", "Cu"), ("zinc", "Zn"),
    ("gallium", "Ga"), ("germanium", "Ge"), ("arsenic", "As"), ("selenium", "Se"), ("bromine", "Br"),
    ("krypton", "Kr"), ("rubidium", "Rb"), ("strontium", "Sr"), ("yttrium", "Y"), ("zirconium", "Zr"),
    ("niobium", "Nb"), ("molybdenum", "Mo"), ("technetium", "Tc"), ("ruthenium", "Ru"), ("rhodium", "Rh"),
    ("palladium", "Pd"), ("silver", "Ag"), ("cadmium", "Cd"), ("indium", "In"), ("tin", "Sn"),
    ("antimony", "Sb"), ("tellurium", "Te"), ("iodine", "I"), ("xenon", "Xe"), ("caesium", "Cs"),
    ("barium", "Ba"), ("lanthanum", "La"), ("cerium", "Ce"), ("praseodymium", "Pr"), ("neodymium", "Nd"),
    ("promethium", "Pm"), ("samarium", "Sm"), ("europium", "Eu"), ("gadolinium", "Gd"), ("terbium", "Tb"),
    ("dysprosium", "Dy"), ("holmium", "Ho"), ("erbium", "Er"), ("thulium", "Tm"), ("ytterbium", "Yb"),
    ("lutetium", "Lu"), ("hafnium", "Hf"), ("tantalum", "Ta"), ("tungsten", "W"), ("rhenium", "Re"),
    ("osmium", "Os"), ("iridium", "Ir"), ("platinum", "Pt"), ("gold", "Au"), ("mercury", "Hg"),
    ("thallium", "Tl"), ("lead", "Pb"), ("bismuth", "Bi"), ("polonium", "Po"), ("astatine", "At"),
    ("radon", "Rn"), ("francium", "Fr"), ("radium", "Ra"), ("actinium", "Ac"), ("thorium", "Th"),
    ("protactinium", "Pa"), ("uranium", "U"), ("neptunium", "Np"), ("plutonium", "Pu"), ("americium", "Am"),
    ("curium", "Cm"), ("berkelium", "Bk"), ("californium", "Cf"), ("einsteinium", "Es"), ("fermium", "Fm"),
)
MAX_Z = len(_TABLE)

# Spellings other than IUPAC's that are correct answers too.
_VARIANTS: dict[str, tuple[str, ...]] = {
    "aluminium": ("aluminum",),
    "sulfur": ("sulphur",),
    "caesium": ("cesium",),
}

# Elements by how widely their atomic number is known (used as difficulty levels when a chain asks
# for an atomic number).
FAMILIAR: dict[str, tuple[int, ...]] = {
    "easy": (2, 6, 7, 8, 10, 11, 13, 17, 26, 29, 47, 79),
    "medium": (3, 5, 9, 12, 14, 15, 16, 18, 19, 20, 30, 50, 53, 80, 82, 92),
    "hard": (4, 21, 22, 24, 25, 27, 28, 33, 34, 35, 36, 38, 40, 42, 46, 48, 54, 56, 74, 78, 86, 88, 94),
}

# The last atomic number of each period (row) of the periodic table.
_PERIOD_ENDS = (2, 10, 18, 36, 54, 86, 118)


def name(z: int) -> str:
    return _TABLE[_check(z) - 1][0]


def symbol(z: int) -> str:
    return _TABLE[_check(z) - 1][1]


def name_aliases(z: int) -> tuple[str, ...]:
    return _VARIANTS.get(name(z), ())


def period(z: int) -> int:
    _check(z)
    return next(p for p, end in enumerate(_PERIOD_ENDS, start=1) if z <= end)


def _check(z: int) -> int:
    if not 1 <= z <= MAX_Z:
        raise ValueError(f"atomic number {z} outside the table (1-{MAX_Z})")
    return z
