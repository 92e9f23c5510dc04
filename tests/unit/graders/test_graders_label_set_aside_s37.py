"""Bands set aside in ways the rules read since session 37, in every language, each beside a twin
that keeps the other verdict: a band too late, its moment past or a waste of time; one left open,
deferred, never considered or of another kind; a change completed with a verb of becoming; one
judged unfair or blind to a fact in the conditional; one dismissed before the plain chosen band."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome

P = CheckOutcome.PASS
FLOOD = ["MONITOR", "PREPARE", "EVACUATE", "SHELTER"]
LEVELS = ["WATCH", "WARNING", "EMERGENCY"]
PERMIT = ["APPROVE", "APPROVE_WITH_CONDITIONS", "REFER", "REFUSE"]
HERD = ["CLEAR", "RETEST", "QUARANTINE", "CULL"]


@pytest.mark.parametrize(
    "answer",
    [
        "EVACUATE. PREPARE would come too late: the water is already over the road.",
        "It's no longer the time for PREPARE. EVACUATE.",
        "EVACUATE now; with PREPARE we'd only lose time.",
        "MONITOR or PREPARE would come too late. EVACUATE.",
        "EVACUATE. Il est trop tard pour PREPARE, l'eau passe déjà sur la digue.",
        "Ce n'est plus le moment d'un PREPARE : EVACUATE.",
        "EVACUATE. Avec PREPARE, on ne ferait que perdre du temps.",
        "Ce n'est plus le moment du MONITOR ni du PREPARE. EVACUATE.",
        "EVACUATE. Für PREPARE ist es jetzt zu spät.",
        "Mit PREPARE würden wir nur Zeit verlieren. EVACUATE.",
        "EVACUATE: PREPARE käme jetzt zu spät.",
        "EVACUATE. PREPARE llegaría tarde: el agua ya pasa por encima del muro.",
        "Ya no es momento de PREPARE. EVACUATE.",
        "EVACUATE; con PREPARE solo perderíamos tiempo.",
        "EVACUATE. PREPARE chegaria tarde demais, a água já galgou o dique.",
        "Já não é altura de PREPARE. EVACUATE.",
        "EVACUATE; com PREPARE só perderíamos tempo.",
        "EVACUATE. PREPARE arriverebbe troppo tardi, l'acqua supera già l'argine.",
        "Non è più il momento di PREPARE: EVACUATE.",
        "EVACUATE; con PREPARE perderemmo solo tempo.",
        "EVACUATE. PREPARE komt nu echt te laat, het water staat al over de dijk.",
        "Het is niet meer de tijd voor PREPARE. EVACUATE.",
        "EVACUATE; met PREPARE verliezen we alleen maar tijd.",
        "MONITOR of PREPARE komt nu te laat. EVACUATE.",
        "EVACUATE. Whether the school opens as a shelter (SHELTER) is decided at the next briefing.",
        "EVACUATE. SHELTER wasn't even considered: the school is in the flood zone.",
        "Decision: EVACUATE. SHELTER is a separate question for the county.",
        "Décision : EVACUATE. SHELTER n'a même pas été envisagé, l'école est en zone inondable.",
        "EVACUATE. Le SHELTER, c'est une autre question.",
        "EVACUATE. La question d'un SHELTER reste ouverte.",
        "Entscheidung: EVACUATE. Ob die Schule als Notunterkunft öffnet (SHELTER), entscheidet erst die"
        " nächste Lagebesprechung.",
        "EVACUATE. SHELTER wurde gar nicht erst erwogen.",
        "EVACUATE. SHELTER ist eine andere Frage.",
        "EVACUATE. El SHELTER ni siquiera se planteó: la escuela está en zona inundable.",
        "EVACUATE. Lo del SHELTER queda pendiente para la próxima reunión.",
        "EVACUATE. El SHELTER es otra cuestión.",
        "EVACUATE. O SHELTER nem foi considerado: a escola fica em zona inundável.",
        "EVACUATE. O SHELTER fica para a próxima reunião.",
        "EVACUATE. O SHELTER é outra questão.",
        "EVACUATE. Lo SHELTER non è stato nemmeno preso in considerazione.",
        "EVACUATE. Sullo SHELTER si deciderà alla prossima riunione.",
        "EVACUATE. Lo SHELTER è un'altra questione.",
        "EVACUATE. SHELTER is niet eens overwogen, de school ligt in het overstromingsgebied.",
        "EVACUATE. Over SHELTER wordt pas volgende week beslist.",
        "EVACUATE. SHELTER is een andere kwestie.",
    ],
)
def test_a_band_too_late_open_or_never_considered_is_not_the_verdict(answer: str) -> None:
    outcome, reason = label(answer, "EVACUATE", FLOOD)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "PREPARE. The pumps would come too late to help the lower street.",
        "PREPARE. Les pompes arriveraient trop tard pour la rue basse.",
        "PREPARE. Die Pumpen kämen zu spät für die untere Straße.",
        "PREPARE. Las bombas llegarían tarde para la calle de abajo.",
        "PREPARE. As bombas chegariam tarde demais para a rua de baixo.",
        "PREPARE. Le pompe arriverebbero troppo tardi per la via bassa.",
        "PREPARE. De pompen komen te laat voor de onderste straat.",
        "Now is the time for PREPARE.",
        "C'est le moment du PREPARE.",
        "Jetzt ist es Zeit für PREPARE.",
        "Es momento de PREPARE.",
        "Agora é altura de PREPARE.",
        "È il momento di PREPARE.",
        "Het is tijd voor PREPARE.",
    ],
)
def test_too_late_said_of_something_else_leaves_the_band(answer: str) -> None:
    outcome, reason = label(answer, "PREPARE", FLOOD)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "SHELTER. The bus convoy wasn't even considered.",
        "SHELTER. Le convoi de bus n'a même pas été envisagé.",
        "SHELTER. Der Buskonvoi wurde gar nicht erst erwogen.",
        "SHELTER. El convoy de autobuses ni siquiera se planteó.",
        "SHELTER. O comboio de autocarros nem foi considerado.",
        "SHELTER. Il convoglio di autobus non è stato nemmeno preso in considerazione.",
        "SHELTER. Het busconvooi is niet eens overwogen.",
    ],
)
def test_never_considered_said_of_something_else_leaves_the_band(answer: str) -> None:
    outcome, reason = label(answer, "SHELTER", FLOOD)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "We first had it on WATCH, but after the 6 pm gauge reading it has become WARNING.",
        "Au départ on était sur WATCH, mais après le relevé de 18 h c'est devenu WARNING.",
        "Zuerst stand es bei uns auf WATCH, aber nach dem Pegelstand um 18 Uhr ist es WARNING geworden.",
        "Al principio lo teníamos en WATCH, pero tras la lectura de las 18 h se ha convertido en WARNING.",
        "Começámos em WATCH, mas depois da leitura das 18 h tornou-se WARNING.",
        "All'inizio era WATCH, ma dopo la lettura delle 18 è diventato WARNING.",
        "Eerst stond de rivier bij ons op WATCH, maar na de meting van 18 uur is het WARNING geworden.",
    ],
)
def test_a_change_completed_with_a_verb_of_becoming_names_where_it_went(answer: str) -> None:
    outcome, reason = label(answer, "WARNING", LEVELS)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "It's WATCH for now; after the 6 pm reading it may become WARNING.",
        "WATCH pour l'instant ; après le relevé de 18 h, ça deviendra WARNING.",
        "Vorerst WATCH; nach 18 Uhr wird es WARNING sein.",
        "De momento WATCH; tras la lectura de las 18 h será WARNING.",
        "Por agora WATCH; depois da leitura das 18 h será WARNING.",
        "Per ora WATCH; più tardi diventerà WARNING.",
        "Voorlopig WATCH; na de meting van 18 uur wordt het WARNING.",
    ],
)
def test_a_change_still_to_come_names_the_band_now(answer: str) -> None:
    outcome, reason = label(answer, "WATCH", LEVELS)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "APPROVE_WITH_CONDITIONS. A plain APPROVE would ignore the drainage report, and REFUSE would be"
        " unfair to the applicant.",
        "APPROVE_WITH_CONDITIONS. Un APPROVE tout court ignorerait le rapport sur le drainage, et"
        " REFUSE serait injuste pour le demandeur.",
        "APPROVE_WITH_CONDITIONS. Ein einfaches APPROVE würde das Entwässerungsgutachten übergehen, und"
        " REFUSE wäre dem Antragsteller gegenüber unfair.",
        "APPROVE_WITH_CONDITIONS. Un APPROVE a secas pasaría por alto el informe de drenaje, y REFUSE"
        " sería injusto con el solicitante.",
        "APPROVE_WITH_CONDITIONS. Um APPROVE simples ignoraria o relatório de drenagem, e REFUSE seria"
        " injusto para o requerente.",
        "APPROVE_WITH_CONDITIONS. Un APPROVE secco ignorerebbe la relazione sul drenaggio, e REFUSE"
        " sarebbe ingiusto verso il richiedente.",
        "APPROVE_WITH_CONDITIONS. Een kaal APPROVE zou het drainagerapport negeren, en REFUSE zou"
        " onterecht zijn tegenover de aanvrager.",
    ],
)
def test_a_band_judged_unfair_or_blind_in_the_conditional_is_denied(answer: str) -> None:
    outcome, reason = label(answer, "APPROVE_WITH_CONDITIONS", PERMIT)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "APPROVE; anything else would be unfair to the applicant.",
        "APPROVE ; tout le reste serait injuste pour le demandeur.",
        "APPROVE; alles andere wäre dem Antragsteller gegenüber unfair.",
        "APPROVE; cualquier otra cosa sería injusta con el solicitante.",
        "APPROVE; qualquer outra coisa seria injusta para o requerente.",
        "APPROVE; qualsiasi altra cosa sarebbe ingiusta verso il richiedente.",
        "APPROVE; al het andere zou onterecht zijn tegenover de aanvrager.",
    ],
)
def test_unfair_said_of_anything_else_leaves_the_band(answer: str) -> None:
    outcome, reason = label(answer, "APPROVE", PERMIT)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "No reason to consider CULL, it's treatable. Nor is there any need to go as far as QUARANTINE."
        " So RETEST.",
        "Aucune raison d'envisager un CULL, ça se traite. QUARANTINE me paraît excessif aussi. Donc RETEST.",
        "Kein Grund für einen CULL. Auch QUARANTINE braucht es nicht. Also RETEST.",
        "No veo motivo para un CULL. Tampoco hace falta llegar a QUARANTINE. Repetimos: RETEST.",
        "Não há razão para pensar num CULL. Também não é preciso chegar a QUARANTINE. Portanto RETEST.",
        "Nessun motivo per pensare a un CULL. Non serve nemmeno arrivare a QUARANTINE. Per me RETEST.",
        "Er is geen reden om CULL te overwegen. QUARANTINE is ook niet nodig. Dus RETEST.",
        "The lab had flagged it as CULL, but without a second culture to confirm the strain that"
        " doesn't hold up. RETEST.",
        "Le labo l'avait classé en CULL, mais sans une seconde culture qui confirme la souche ça ne"
        " tient pas. RETEST.",
        "Das Labor hatte es als CULL eingestuft, aber ohne eine zweite Kultur, die den Stamm bestätigt,"
        " hält das nicht. RETEST.",
        "El laboratorio lo había marcado como CULL, pero sin un segundo cultivo que confirme la cepa no"
        " se sostiene. RETEST.",
        "O laboratório tinha-o marcado como CULL, mas sem uma segunda cultura que confirme a estirpe"
        " não se sustenta. RETEST.",
        "Il laboratorio l'aveva segnato come CULL, ma senza una seconda coltura che confermi il ceppo"
        " non sta in piedi. Per me RETEST.",
        "Het lab had het als CULL aangemerkt, maar zonder een tweede kweek die de stam bevestigt klopt"
        " dat niet. RETEST.",
    ],
)
def test_bands_dismissed_before_the_chosen_one_are_not_named(answer: str) -> None:
    outcome, reason = label(answer, "RETEST", HERD)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "CULL; there is no reason to consider treatment.",
        "CULL ; aucune raison d'envisager un traitement.",
        "CULL; es braucht auch keine Behandlung.",
        "CULL; tampoco hace falta llegar a tratar.",
        "CULL; também não é preciso chegar a tratar.",
        "CULL; non serve nemmeno arrivare a curarla.",
        "CULL; een behandeling is ook niet nodig.",
        "Il laboratorio l'aveva segnato come CULL, e con una seconda coltura che conferma il ceppo sta"
        " in piedi. CULL.",
    ],
)
def test_dismissive_words_said_of_something_else_leave_the_band(answer: str) -> None:
    outcome, reason = label(answer, "CULL", HERD)
    assert outcome is P, reason


def test_a_band_said_to_be_considered_is_still_named() -> None:
    outcome, _ = label("EVACUATE. SHELTER was considered at the meeting too.", "EVACUATE", FLOOD)
    assert outcome is CheckOutcome.FAIL


@pytest.mark.parametrize(
    "answer",
    [
        "EVACUATE llega tarde, pero es lo que toca.",
        "EVACUATE chega tarde, mas é o que há a fazer.",
        "EVACUATE arriva tardi, ma è l'unica strada.",
    ],
)
def test_a_band_merely_late_is_still_given(answer: str) -> None:
    outcome, reason = label(answer, "EVACUATE", FLOOD)
    assert outcome is P, reason


def test_a_band_and_another_after_a_comma_are_not_one_subject() -> None:
    outcome, reason = label("EVACUATE, and PREPARE would come too late.", "EVACUATE", FLOOD)
    assert outcome is P, reason
