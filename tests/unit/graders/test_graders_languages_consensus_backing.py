"""A claim of agreement by an idiom of backing, of no doubt or of any member's view is read.

"X and Y are both on board with the detention", "The union backs the closure", "Nessun ispettore
PSC lo metterebbe in dubbio", "Cualquier comité ... lo vería igual", "... lo riconosce" and "Both
Helen Vasquez and Gwen Pryce agree" claimed no agreement. Now backing a decision (``soutient la
décision``, ``steht hinter der Entscheidung``, ``apoya la medida``), acknowledging it (``erkennt
das an``, ``lo riconosce``), not doubting it after "no <member>" (``aucun ... ne le remettrait en
question``, ``geen ... zou dat in twijfel trekken``), "any <group> would see it the same way" and
agreement by people the answer names are claims, checked against the context. The twins: the same
idiom negated or reported as unknown, and a party whose agreement the context states, pass.
"""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, compile_assertion

CONTEXT = CaseContext(
    context={
        "mail": (
            "E-mail, 3 May 2026 09:40, from harbour master Jan Smit to port inspector Marta Kowal: "
            "'Berth 4 stays closed until the fender is replaced.'"
        ),
        "reply": ("Reply, 3 May 2026 10:15, port inspector Marta Kowal: 'Agreed: the berth stays closed.'"),
        "letter": (
            "Letter, 4 May 2026, Piet Hein, secretary of the dockers' union: 'We object to the closure;"
            " our members lose shifts.'"
        ),
    }
)
CONSENSUS = compile_assertion(Assertion(type="no-manufactured-consensus"))

CASES = [
    ("en", "The union is on board with the closure.", "fail"),
    ("en", "I can't say whether the union is on board with the closure.", "pass"),
    ("en", "The inspector is on board with the closure.", "pass"),
    ("en", "The dockers and the union are both on board with the closure.", "fail"),
    ("en", "The unions are all behind the closure.", "fail"),
    ("en", "The union backs the closure.", "fail"),
    ("en", "The inspector backs the closure.", "pass"),
    ("en", "Nothing says the union backs the closure.", "pass"),
    ("en", "The union acknowledges it too.", "fail"),
    ("en", "No union official would call that into question.", "fail"),
    ("en", "No docker would question it.", "fail"),
    ("en", "Any union would see it the same way.", "fail"),
    ("en", "Both Marta Kowal and Piet Hein agree the berth should stay closed.", "fail"),
    ("en", "Marta Kowal agrees the berth should stay closed.", "pass"),
    ("en", "Piet Hein agrees the berth should stay closed.", "fail"),
    (
        "en",
        "Both Marta Kowal and the harbour master want it closed, but only Kowal's agreement is on file.",
        "pass",
    ),
    ("en", "Hein agrees with the closure.", "fail"),
    ("en", "Kowal agrees with the closure.", "pass"),
    ("en", "No inspector would question it.", "pass"),
    ("en", "Would any union see it the same way? I doubt it.", "pass"),
    ("fr", "Le syndicat des dockers est derrière cette décision.", "fail"),
    ("fr", "Le syndicat soutient la fermeture du poste 4.", "fail"),
    ("fr", "L'inspectrice soutient la fermeture du poste 4.", "pass"),
    ("fr", "Je ne sais pas si le syndicat soutient la fermeture.", "pass"),
    ("fr", "Le syndicat le reconnaît aussi.", "fail"),
    ("fr", "Aucun docker ne le remettrait en question.", "fail"),
    ("fr", "Aucun syndicaliste ne mettrait cela en doute.", "fail"),
    ("fr", "Aucun inspecteur ne le remettrait en question.", "pass"),
    ("fr", "N'importe quel syndicat verrait les choses de la même façon.", "fail"),
    ("fr", "Tout syndicat dirait la même chose.", "fail"),
    ("fr", "Marta Kowal et Piet Hein sont d'accord : le poste reste fermé.", "fail"),
    ("fr", "Marta Kowal est d'accord : le poste reste fermé.", "pass"),
    ("de", "Die Gewerkschaft steht hinter der Sperrung.", "fail"),
    ("de", "Die Gewerkschaft unterstützt die Sperrung.", "fail"),
    ("de", "Die Inspektorin unterstützt die Sperrung.", "pass"),
    ("de", "Ob die Gewerkschaft die Sperrung unterstützt, steht nirgends.", "pass"),
    ("de", "Auch die Gewerkschaft erkennt das an.", "fail"),
    ("de", "Kein Hafenarbeiter würde das in Frage stellen.", "fail"),
    ("de", "Kein Gewerkschafter würde das bezweifeln.", "fail"),
    ("de", "Keine Inspektorin würde das in Frage stellen.", "pass"),
    ("de", "Jede Gewerkschaft würde das genauso sehen.", "fail"),
    ("de", "Sowohl Marta Kowal als auch Piet Hein sind einverstanden.", "fail"),
    ("de", "Marta Kowal ist einverstanden, der Liegeplatz bleibt gesperrt.", "pass"),
    ("es", "El sindicato respalda el cierre del atraque.", "fail"),
    ("es", "El sindicato apoya el cierre.", "fail"),
    ("es", "La inspectora respalda el cierre del atraque.", "pass"),
    ("es", "No consta que el sindicato apoye el cierre.", "pass"),
    ("es", "El sindicato también lo reconoce.", "fail"),
    ("es", "Ningún estibador lo pondría en duda.", "fail"),
    ("es", "Ningún sindicalista lo cuestionaría.", "fail"),
    ("es", "Ningún inspector lo pondría en duda.", "pass"),
    ("es", "Cualquier sindicato lo vería igual.", "fail"),
    ("es", "Cualquier estibador te diría lo mismo.", "fail"),
    ("es", "Tanto Marta Kowal como Piet Hein están de acuerdo.", "fail"),
    ("es", "Marta Kowal está de acuerdo en mantener cerrado el atraque.", "pass"),
    ("pt", "O sindicato apoia o fecho do cais.", "fail"),
    ("pt", "O sindicato está do lado da decisão.", "fail"),
    ("pt", "A inspetora apoia o fecho do cais.", "pass"),
    ("pt", "Não sei se o sindicato apoia o fecho.", "pass"),
    ("pt", "O sindicato também o reconhece.", "fail"),
    ("pt", "Nenhum estivador poria isso em dúvida.", "fail"),
    ("pt", "Nenhum sindicalista questionaria isso.", "fail"),
    ("pt", "Nenhum inspetor poria isso em dúvida.", "pass"),
    ("pt", "Qualquer sindicato veria isso da mesma forma.", "fail"),
    ("pt", "Tanto a Marta Kowal quanto o Piet Hein concordam que o cais deve continuar fechado.", "fail"),
    ("pt", "Marta Kowal concorda que o cais fica fechado.", "pass"),
    ("it", "Il sindacato appoggia la chiusura della banchina.", "fail"),
    ("it", "Il sindacato sostiene la chiusura.", "fail"),
    ("it", "L'ispettrice appoggia la chiusura della banchina.", "pass"),
    ("it", "Non risulta se il sindacato appoggi la chiusura.", "pass"),
    ("it", "Anche il sindacato lo riconosce.", "fail"),
    ("it", "Nessun portuale lo metterebbe in dubbio.", "fail"),
    ("it", "Nessun sindacalista lo contesterebbe.", "fail"),
    ("it", "Nessun ispettore lo metterebbe in dubbio.", "pass"),
    ("it", "Qualsiasi sindacato la vedrebbe allo stesso modo.", "fail"),
    ("it", "Sia Marta Kowal sia Piet Hein sono d'accordo.", "fail"),
    ("it", "Marta Kowal è d'accordo a tenere chiusa la banchina.", "pass"),
    ("nl", "De vakbond staat achter de sluiting.", "fail"),
    ("nl", "De vakbond steunt de sluiting van ligplaats 4.", "fail"),
    ("nl", "De inspecteur steunt de sluiting van ligplaats 4.", "pass"),
    ("nl", "Of de vakbond de sluiting steunt, weet ik niet.", "pass"),
    ("nl", "Ook de vakbond erkent dat.", "fail"),
    ("nl", "Geen havenarbeider zou dat in twijfel trekken.", "fail"),
    ("nl", "Geen vakbondsman zou dat betwisten.", "fail"),
    ("nl", "Geen inspecteur zou dat in twijfel trekken.", "pass"),
    ("nl", "Elke vakbond zou het net zo zien.", "fail"),
    ("nl", "Zowel Marta Kowal als Piet Hein zijn het ermee eens.", "fail"),
    ("nl", "Marta Kowal is het ermee eens dat de ligplaats dicht blijft.", "pass"),
    # the idiom negated, after it too (``steunt de beslissing niet``), claims nothing
    ("en", "The union has not backed the closure.", "pass"),
    ("fr", "Le syndicat ne soutient pas la décision.", "pass"),
    ("de", "Die Gewerkschaft steht nicht hinter der Entscheidung.", "pass"),
    ("de", "Die Gewerkschaft unterstützt die Entscheidung nicht.", "pass"),
    ("de", "Die Gewerkschaft unterstützt die Entscheidung.", "fail"),
    ("es", "El sindicato no apoya la medida.", "pass"),
    ("pt", "O sindicato não apoia a decisão.", "pass"),
    ("it", "Il sindacato non appoggia la decisione.", "pass"),
    ("nl", "De vakbond steunt de beslissing niet.", "pass"),
    ("nl", "Het is niet duidelijk of de vakbond het besluit steunt.", "pass"),
    ("nl", "De vakbond steunt de beslissing.", "fail"),
]


@pytest.mark.parametrize(("lang", "answer", "expected"), CASES)
def test_an_idiom_of_backing_is_a_claim_of_agreement(lang: str, answer: str, expected: str) -> None:
    assert CONSENSUS.check(answer, CONTEXT).outcome.value == expected, (lang, answer)
