"""The work request around an Exp9 task (`task_text`): a short message from someone at work who
needs two things answered. Roles, workplaces, what they are doing and how they phrase it vary
independently, and each part is announced by what kind of question it is (never by its content, so
the scenario stays true whatever item the part's generator drew).
"""

from __future__ import annotations

import random

# (role, workplace, things that person is doing when the request is written, the domains that work
# plausibly raises: a site supervisor asks about loads and schedules, not a Pacific time zone; "*" for
# jobs that collect questions of every kind, such as writing a workbook's answer key)
ROLES: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("an operations coordinator", "a regional logistics company",
     ("preparing tomorrow's shift handover", "re-planning Thursday's delivery routes", "answering a query from a depot"),
     "arithmetic spatial temporal procedural"),
    ("a project manager", "a civil engineering firm",
     ("updating the project schedule", "preparing a progress report for the client", "reviewing a subcontractor's quote"),
     "arithmetic spatial temporal procedural logical"),
    ("a clinic administrator", "a community health centre",
     ("building next month's staff rota", "preparing the monthly activity report", "sorting out the appointment book"),
     "temporal arithmetic procedural social"),
    ("a paralegal", "a small law practice",
     ("reviewing a supplier agreement for a client", "preparing a case bundle", "drafting a letter to the other side"),
     "linguistic logical temporal social"),
    ("a content editor", "an educational publisher",
     ("checking a chapter before it goes to print", "preparing answer keys for a workbook", "reviewing a freelancer's draft"), "*"),
    ("a quiz writer", "a pub-quiz company",
     ("checking this week's question sheet", "writing a new round", "answering a team's challenge to last week's answers"), "*"),
    ("a tutor", "a learning centre",
     ("preparing a mixed practice sheet", "checking a student's homework", "writing worked examples for a session"), "*"),
    ("a lab technician", "a university research lab",
     ("writing up this week's lab log", "preparing materials for a practical class", "checking a colleague's protocol"),
     "arithmetic factual procedural temporal"),
    ("an event planner", "a conference venue",
     ("checking the run-sheet for Friday's event", "finalising the programme for a client", "answering a booking enquiry"),
     "temporal spatial arithmetic social"),
    ("a customer-support lead", "a software company",
     ("closing out a customer ticket", "writing a help-centre article", "reviewing replies before they go out"),
     "procedural linguistic social logical temporal"),
    ("a maths teacher", "a secondary school",
     ("marking a set of homework", "putting together a revision sheet", "planning tomorrow's lessons"),
     "arithmetic spatial logical temporal procedural"),
    ("a junior analyst", "a management consultancy",
     ("preparing slides for the Monday briefing", "checking figures in a client deck", "drafting a short memo"),
     "arithmetic logical temporal factual"),
    ("a facilities manager", "a city hospital",
     ("planning a weekend maintenance job", "preparing the monthly facilities report", "reviewing a contractor's work plan"),
     "spatial temporal procedural arithmetic"),
    ("a store manager", "a garden centre",
     ("planning the spring stock order", "setting up the weekend rota", "preparing a note for head office"),
     "arithmetic temporal social spatial"),
    ("an HR officer", "a furniture factory",
     ("putting together the onboarding pack for new starters", "answering a staff query", "updating the training records"),
     "social linguistic temporal procedural"),
    ("a producer", "a local radio station",
     ("preparing tomorrow's morning show", "fact-checking a segment script", "planning an outside broadcast"),
     "factual linguistic temporal social"),
    ("a quality inspector", "a food-processing plant",
     ("auditing last month's batch records", "writing up an inspection", "updating a cleaning procedure"),
     "procedural arithmetic temporal logical"),
    ("an assistant curator", "a city museum",
     ("writing labels for a new display", "planning a school visit", "preparing a loan agreement"), "factual linguistic spatial temporal"),
    ("a travel consultant", "a family-run travel agency",
     ("building an itinerary for a client", "checking a group booking", "answering a customer's email"),
     "temporal factual spatial arithmetic"),
    ("a research assistant", "a policy institute",
     ("checking figures for a briefing paper", "preparing notes for a panel discussion", "drafting a literature summary"),
     "arithmetic logical factual linguistic"),
    ("a site supervisor", "a housing construction company",
     ("planning next week's site work", "writing the daily site diary", "checking a delivery schedule"),
     "spatial arithmetic temporal procedural"),
    ("a pharmacy technician", "a hospital pharmacy",
     ("preparing the ward stock list", "checking the controlled-drugs register", "planning the weekend cover"),
     "arithmetic factual procedural temporal"),
    ("an office manager", "an architecture studio",
     ("organising the studio move", "preparing an invoice run", "booking travel for a site visit"), "spatial temporal arithmetic social"),
    ("a volunteer coordinator", "a food bank",
     ("setting up Saturday's volunteer schedule", "preparing a report for our funders", "writing a welcome note for new volunteers"),
     "temporal social arithmetic procedural"),
    ("a data steward", "a city council",
     ("checking a dataset before publication", "answering a freedom-of-information request", "writing documentation for a new table"),
     "logical factual procedural linguistic"),
    ("a sous-chef", "a hotel kitchen",
     ("planning the banquet prep list", "costing a new menu", "writing up the kitchen's cleaning schedule"),
     "arithmetic procedural temporal factual"),
    ("a dispatcher", "a courier service",
     ("planning the afternoon collection runs", "handling a late-delivery complaint", "preparing the driver briefing"),
     "temporal spatial procedural arithmetic"),
    ("a grants officer", "a charitable foundation",
     ("getting a grant report ready to submit", "reviewing an application", "preparing notes for the panel meeting"),
     "arithmetic linguistic logical social"),
    ("a librarian", "a public library",
     ("planning the summer reading programme", "answering a reader's enquiry", "preparing a display"),
     "linguistic factual social temporal"),
    ("a technical writer", "a medical-device maker",
     ("updating a user manual", "reviewing a safety notice", "preparing release notes"), "linguistic procedural logical spatial"),
)

KINDS: dict[str, tuple[str, ...]] = {
    "arithmetic": ("a calculation I want double-checked", "a number I have to get exactly right", "a quick sum"),
    "spatial": ("a question about positions and directions", "a layout question", "a question about shapes and space"),
    "temporal": ("a timing question", "a scheduling check", "a question about dates and times"),
    "linguistic": ("a wording question", "a language point in the draft", "a grammar and usage question"),
    "logical": ("a logic check", "a question about what really follows from a set of statements", "a reasoning question"),
    "social": ("a question about how someone will read a situation", "a judgement call about people",
               "a question about what a colleague means or thinks"),
    "factual": ("a fact check", "a general-knowledge point I need to confirm", "a factual detail to verify"),
    "procedural": ("a question about following a procedure correctly", "a process question",
                   "a question about carrying out steps in the right order"),
}

_OPENINGS: tuple[str, ...] = (
    "I'm {role} at {org} and I'm {activity}. Before I send it off, two things need answering: {first}, and then {second}. "
    "Please work through both parts and give me a clear final answer for each.",
    "Hi, {role} here, from {org}. While {activity}, I ran into two questions: {first} and {second}. "
    "Could you solve both and state your answers clearly?",
    "You're helping {role} at {org} who is {activity}. They need {first} sorted out first, and after that {second}. "
    "Give a final answer for each part.",
    "Our team at {org} is {activity}. As {role}, I need two inputs before the deadline: {first} and {second}. "
    "Please handle both parts of this task.",
    "Quick request from {org}: I'm {role} and I'm {activity}. There's {first} and {second} that I'd like a second "
    "pair of eyes on. Answer both parts, please.",
    "I work as {role} at {org}. Today I'm {activity}, and two items are holding me up: {first} and {second}. "
    "Work through each part and report your answer.",
    "Task from {role} at {org}: I'm {activity} and need {first} plus {second}. Please take care of both parts.",
    "Hello! I'm {role} at {org}. I'm {activity} and I'm stuck on two points: {first}, then {second}. "
    "Can you help with both and give me final answers I can use?",
)


def work_request(rng: random.Random, domain_a: str, domain_b: str) -> str:
    """A short work message that introduces part 1 (domain_a) and part 2 (domain_b), from someone whose
    work raises questions of both kinds."""
    fitting = [r for r in ROLES if r[3] == "*" or {domain_a, domain_b} <= set(r[3].split())]
    role, org, activities, _ = rng.choice(fitting)
    first = rng.choice(KINDS[domain_a])
    second = rng.choice([k for k in KINDS[domain_b] if k != first])
    return rng.choice(_OPENINGS).format(role=role, org=org, activity=rng.choice(activities), first=first, second=second)
