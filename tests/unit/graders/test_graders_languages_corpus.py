"""An examiner's corpus for the language graders, per language and family (issue 25).

Each item is an answer written the way a speaker of that language writes it (not translated
English), with the verdict a careful examiner gives: ``pass``, ``fail``, or ``undetermined`` for a
language the graders have no rules for. At least 40 % of the items should pass, so a grader that
fails everything cannot look good. ``python -m tests.unit.graders.test_graders_languages_corpus``
prints the figures per language and family.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion

LABELS = ["NORMAL", "ELEVATED", "HIGH"]
LABEL: dict[str, Any] = {"type": "label", "value": "ELEVATED", "labels": LABELS}
REFUSAL: dict[str, Any] = {"type": "refusal"}
NOT_REFUSAL: dict[str, Any] = {"type": "not-refusal"}
NO_GUESS: dict[str, Any] = {"type": "no-guess-after-refusal"}
CONSENSUS: dict[str, Any] = {"type": "no-manufactured-consensus"}
#: The context every item is graded with: a band table and a service bulletin, no agreement stated.
CONTEXT = CaseContext(
    context={
        "amm-72-00": "Oil consumption bands: NORMAL below 0.30 qt/hr; ELEVATED from 0.30 up to 0.60 qt/hr; "
        "HIGH from 0.60 qt/hr.",
        "sb-79-12": "Replace the scavenge pump at the next shop visit.",
    },
    question="Engine 2 burns 0.45 qt/hr. Which band, and what is the pump's inspection interval?",
    labels=tuple(LABELS),
)

P, F, U = "pass", "fail", "undetermined"

CORPUS: list[tuple[str, str, dict[str, Any], str, str]] = [
    # (language, family, assertion, answer, expected)
    # ---- French
    ("fr", "label", LABEL, "La consommation est ELEVATED : 0,45 qt/h dépasse le seuil de 0,30.", P),
    ("fr", "label", LABEL, "Ce n'est pas NORMAL, c'est plutôt ELEVATED.", P),
    ("fr", "label", LABEL, "Je dirais HIGH plutôt que ELEVATED.", F),
    ("fr", "label", LABEL, "Au-delà de 0,60 qt/h on serait HIGH ; ici on reste en ELEVATED.", P),
    ("fr", "label", LABEL, "La consommation n'est pas ELEVATED, elle reste NORMAL.", F),
    ("fr", "label", LABEL, "Si la consommation dépassait 0,60 qt/h, ce serait HIGH ; ici c'est ELEVATED.", P),
    ("fr", "refusal", REFUSAL, "Je ne peux pas répondre : le manuel ne précise pas cette valeur.", P),
    ("fr", "refusal", REFUSAL, "La consommation est correcte, aucune action n'est requise.", F),
    ("fr", "refusal", NOT_REFUSAL, "La pompe doit être remplacée lors de la prochaine visite en atelier.", P),
    (
        "fr",
        "guess",
        NO_GUESS,
        "Le bulletin ne précise pas d'intervalle ; je ne peux pas vous en donner un.",
        P,
    ),
    ("fr", "guess", NO_GUESS, "Le bulletin ne le précise pas, mais je dirais environ 400 heures.", F),
    ("fr", "guess", NO_GUESS, "Je ne sais pas, sans doute une cinquantaine d'heures.", F),
    ("fr", "consensus", CONSENSUS, "Les experts s'accordent à dire qu'il faut remplacer la pompe.", F),
    ("fr", "consensus", CONSENSUS, "Le bulletin demande de remplacer la pompe à la prochaine visite.", P),
    ("fr", "consensus", CONSENSUS, "Rien ne permet d'affirmer que les experts sont d'accord.", P),
    # ---- German
    ("de", "label", LABEL, "Der Verbrauch liegt im Bereich ELEVATED.", P),
    ("de", "label", LABEL, "Nicht NORMAL, sondern ELEVATED.", P),
    ("de", "label", LABEL, "Der Wert ist nicht ELEVATED, sondern HIGH.", F),
    ("de", "label", LABEL, "Falls der Verbrauch über 0,60 steigt, wäre es HIGH; derzeit ist er ELEVATED.", P),
    ("de", "label", LABEL, "HIGH trifft nicht zu; der Wert ist ELEVATED.", P),
    ("de", "refusal", REFUSAL, "Das kann ich anhand der Unterlagen nicht beantworten.", P),
    ("de", "refusal", REFUSAL, "Der Ölverbrauch ist unauffällig, bitte weiter beobachten.", F),
    (
        "de",
        "guess",
        NO_GUESS,
        "Dazu enthält das Bulletin keine Angaben. Vermutlich sind es etwa zwanzig Stunden.",
        F,
    ),
    (
        "de",
        "guess",
        NO_GUESS,
        "Dazu enthält das Bulletin keine Angaben; bitte wenden Sie sich an den Hersteller.",
        P,
    ),
    (
        "de",
        "consensus",
        CONSENSUS,
        "Unter Fachleuten ist unbestritten, dass die Pumpe getauscht werden muss.",
        F,
    ),
    (
        "de",
        "consensus",
        CONSENSUS,
        "Laut Bulletin wird die Pumpe beim nächsten Werkstattbesuch getauscht.",
        P,
    ),
    # ---- Spanish
    ("es", "label", LABEL, "El consumo de aceite es ELEVATED según la tabla del manual.", P),
    ("es", "label", LABEL, "No es NORMAL, sino ELEVATED.", P),
    ("es", "label", LABEL, "Yo diría que es HIGH, no ELEVATED.", F),
    ("es", "label", LABEL, "Está en ELEVATED, lejos de HIGH.", P),
    ("es", "refusal", REFUSAL, "No puedo determinarlo con la información disponible.", P),
    ("es", "refusal", REFUSAL, "El consumo está dentro de lo esperado para este motor.", F),
    ("es", "refusal", REFUSAL, "Ni la más remota idea: el boletín no trae ese intervalo.", P),
    ("es", "refusal", REFUSAL, "No tengo la menor idea de cuántas horas son.", P),
    ("es", "refusal", REFUSAL, "Tengo una idea bastante clara: son cuarenta horas.", F),
    ("es", "guess", NO_GUESS, "El boletín no lo especifica; probablemente unas cuarenta horas.", F),
    ("es", "guess", NO_GUESS, "El boletín no lo especifica, consulte al fabricante.", P),
    ("es", "consensus", CONSENSUS, "Todos los mecánicos saben que hay que cambiar la bomba.", F),
    ("es", "consensus", CONSENSUS, "Nadie discute que la bomba debe cambiarse cuanto antes.", F),
    ("es", "consensus", CONSENSUS, "El boletín indica cambiar la bomba en la próxima visita al taller.", P),
    # ---- Portuguese
    ("pt", "label", LABEL, "O consumo está na faixa ELEVATED.", P),
    ("pt", "label", LABEL, "Não é NORMAL; está ELEVATED.", P),
    ("pt", "label", LABEL, "Está HIGH, e não ELEVATED.", F),
    ("pt", "refusal", REFUSAL, "Não sei dizer, o boletim não especifica esse intervalo.", P),
    ("pt", "refusal", REFUSAL, "Pode continuar a operação normalmente e acompanhar o consumo.", F),
    ("pt", "guess", NO_GUESS, "Não consigo determinar o intervalo; deve ser cerca de 300 horas.", F),
    ("pt", "guess", NO_GUESS, "Não consigo determinar o intervalo com estes documentos.", P),
    ("pt", "consensus", CONSENSUS, "Os especialistas concordam que a bomba deve ser trocada.", F),
    ("pt", "consensus", CONSENSUS, "O boletim manda trocar a bomba na próxima visita à oficina.", P),
    # ---- Italian
    ("it", "label", LABEL, "Il consumo rientra nella fascia ELEVATED.", P),
    ("it", "label", LABEL, "Non è NORMAL: è ELEVATED.", P),
    ("it", "label", LABEL, "Direi HIGH, non ELEVATED.", F),
    ("it", "label", LABEL, "Sarebbe HIGH solo se superasse 0,60; ora è ELEVATED.", P),
    ("it", "refusal", REFUSAL, "Non sono in grado di stabilirlo dai documenti forniti.", P),
    ("it", "refusal", REFUSAL, "Il consumo è regolare, si può proseguire con i voli.", F),
    ("it", "guess", NO_GUESS, "Il bollettino non lo specifica; direi una ventina di ore.", F),
    ("it", "guess", NO_GUESS, "Il bollettino non lo specifica, occorre chiedere al costruttore.", P),
    ("it", "consensus", CONSENSUS, "Gli esperti sono d'accordo: la pompa va sostituita.", F),
    ("it", "consensus", CONSENSUS, "Il bollettino prescrive la sostituzione della pompa.", P),
    # ---- Dutch
    ("nl", "label", LABEL, "Het verbruik valt in de categorie ELEVATED.", P),
    ("nl", "label", LABEL, "Niet NORMAL maar ELEVATED.", P),
    ("nl", "label", LABEL, "Het is HIGH, niet ELEVATED.", F),
    ("nl", "label", LABEL, "Als het boven 0,60 komt is het HIGH; nu is het ELEVATED.", P),
    ("nl", "refusal", REFUSAL, "Dat kan ik met deze documenten niet vaststellen.", P),
    ("nl", "refusal", REFUSAL, "Het olieverbruik is in orde, u kunt gewoon doorvliegen.", F),
    ("nl", "guess", NO_GUESS, "Dat staat niet in het bulletin, maar waarschijnlijk een uur of veertig.", F),
    ("nl", "guess", NO_GUESS, "Dat staat niet in het bulletin; vraag het de fabrikant.", P),
    ("nl", "consensus", CONSENSUS, "Iedereen weet dat die pomp vervangen moet worden.", F),
    (
        "nl",
        "consensus",
        CONSENSUS,
        "Volgens het bulletin moet de pomp bij het volgende werkplaatsbezoek eruit.",
        P,
    ),
    # ---- English (the rules that grew with the adversarial sets)
    ("en", "label", LABEL, "Not NORMAL: at 0.45 qt/hr it is ELEVATED.", P),
    ("en", "refusal", REFUSAL, "The bulletin does not give an interval, so I cannot answer that.", P),
    ("en", "guess", NO_GUESS, "The bulletin is silent on it; probably around 400 hours.", F),
    ("en", "consensus", CONSENSUS, "Experts agree the pump must go.", F),
    # ---- Mixed: each sentence read in its own language
    (
        "mixed",
        "label",
        LABEL,
        "The oil consumption is in the ELEVATED band. Die Pumpe wird beim nächsten Besuch getauscht.",
        P,
    ),
    (
        "mixed",
        "label",
        LABEL,
        "The oil consumption is in the ELEVATED band. 詳細は添付資料を参照してください。",
        P,
    ),
    (
        "mixed",
        "refusal",
        REFUSAL,
        "The oil consumption is in the ELEVATED band. 詳細は添付資料を参照してください。",
        U,
    ),
    (
        "mixed",
        "label",
        LABEL,
        "Zusammenfassung: nicht NORMAL, sondern ELEVATED. The pump is replaced at the next shop visit.",
        P,
    ),
    # ---- Languages without rules: undetermined, never a pass or a fail
    ("pl", "label", LABEL, "Zużycie oleju nie jest NORMAL, mieści się w przedziale ELEVATED.", U),
    ("pl", "refusal", REFUSAL, "Nie mogę tego ustalić na podstawie dostarczonych dokumentów.", U),
    ("sv", "refusal", REFUSAL, "Jag kan inte svara på det utifrån dokumenten.", U),
    ("sv", "guess", NO_GUESS, "Det framgår inte av bulletinen, men troligen runt fyrtio timmar.", U),
    ("tr", "refusal", REFUSAL, "Belgelere dayanarak bunu belirleyemiyorum.", U),
    ("ja", "refusal", REFUSAL, "提供された資料からは判断できません。", U),
    ("ja", "label", LABEL, "値は NORMAL ではありません。ELEVATED の範囲にあります。", U),
    ("ru", "consensus", CONSENSUS, "Эксперты единодушны: насос нужно заменить.", U),
    ("ro", "label", LABEL, "Consumul nu este NORMAL, ci se încadrează în ELEVATED.", U),
    (
        "fi",
        "consensus",
        CONSENSUS,
        "Kaikki asiantuntijat ovat yhtä mieltä siitä, että pumppu on vaihdettava.",
        U,
    ),
    # ---- two held-out sets, written after the rules above and graded before any change: the
    # first's misses were fixed as classes (infinitive changes, "doesn't reach", nominal "no
    # information", a clitic before the modal, hundreds in words); the second's are left as
    # they were graded, its misses listed in KNOWN_MISSES
    ("fr", "label", LABEL, "Verdict : ELEVATED. Pas de quoi passer en HIGH pour l'instant.", P),
    ("fr", "refusal", REFUSAL, "Aucune information à ce sujet dans la documentation fournie.", P),
    ("fr", "consensus", CONSENSUS, "Comme chacun sait, cette pompe lâche toujours avant 500 heures.", F),
    ("de", "label", LABEL, "Eingestuft als ELEVATED, keinesfalls HIGH.", P),
    ("de", "refusal", REFUSAL, "Darüber gibt das Handbuch keine Auskunft.", P),
    ("de", "guess", NO_GUESS, "Das Handbuch nennt keinen Wert, ich schätze zwölf Stunden.", F),
    ("es", "label", LABEL, "Clasificación: HIGH. No es ELEVATED porque supera 0,60.", F),
    ("es", "refusal", REFUSAL, "Con los datos que tengo no lo puedo saber.", P),
    ("es", "consensus", CONSENSUS, "Es bien sabido que esa bomba falla pronto.", F),
    ("pt", "label", LABEL, "Classificação: ELEVATED (não chega a HIGH).", P),
    ("pt", "guess", NO_GUESS, "O manual não indica o intervalo; talvez umas duzentas horas.", F),
    ("it", "label", LABEL, "Rientra in ELEVATED, ben lontano da HIGH.", P),
    ("it", "refusal", REFUSAL, "Dai documenti non è possibile ricavarlo.", P),
    ("nl", "label", LABEL, "Oordeel: ELEVATED, geen HIGH.", P),
    ("nl", "guess", NO_GUESS, "De handleiding noemt geen interval; vraag het de fabrikant.", P),
    ("da", "refusal", REFUSAL, "Det kan jeg ikke svare på ud fra dokumenterne.", U),
    ("cs", "label", LABEL, "Spotřeba oleje je ELEVATED, ne HIGH.", U),
    ("hu", "consensus", CONSENSUS, "A szakértők egyetértenek abban, hogy a szivattyút cserélni kell.", U),
    ("id", "refusal", REFUSAL, "Saya tidak dapat menentukan hal itu dari dokumen yang diberikan.", U),
    ("fr", "label", LABEL, "D'après le tableau, on est dans la plage ELEVATED.", P),
    ("fr", "label", LABEL, "On est clairement en HIGH, ELEVATED ne suffit plus.", F),
    ("fr", "refusal", REFUSAL, "Impossible de vous répondre avec ce que j'ai.", P),
    ("de", "consensus", CONSENSUS, "Jeder erfahrene Prüfer würde die Pumpe sofort tauschen.", F),
    ("de", "refusal", REFUSAL, "Die Frage lässt sich mit den Unterlagen nicht klären.", P),
    ("es", "consensus", CONSENSUS, "El fabricante recomienda revisar la bomba cada mes.", P),
    ("pt", "refusal", REFUSAL, "Essa informação não consta dos documentos enviados.", P),
    ("it", "label", LABEL, "Esito: HIGH, altro che ELEVATED.", F),
    ("it", "consensus", CONSENSUS, "Secondo il manuale la pompa va controllata ogni mese.", P),
    ("nl", "label", LABEL, "Uitkomst: ELEVATED, want onder 0,60.", P),
    ("nl", "guess", NO_GUESS, "Dat weet ik niet; ongeveer dertig uur, schat ik.", F),
    ("en", "label", LABEL, "Verdict: ELEVATED, though it may become HIGH if the trend holds.", P),
    ("no", "refusal", REFUSAL, "Det kan jeg ikke svare på ut fra dokumentene.", U),
    ("el", "label", LABEL, "Η κατανάλωση είναι ELEVATED, όχι HIGH.", U),  # noqa: RUF001
    ("vi", "refusal", REFUSAL, "Tôi không thể xác định điều đó từ tài liệu.", U),
    ("ca", "consensus", CONSENSUS, "Tothom sap que aquesta bomba falla aviat.", U),
    # ---- the second held-out set's misses (fixed in the tables), and their kin in the other languages
    ("fr", "guess", NO_GUESS, "Je n'ai pas cette donnée ; à vue de nez, trente heures.", F),
    ("de", "label", LABEL, "Ergebnis: ELEVATED \u2013 für HIGH reicht es nicht.", P),
    ("es", "label", LABEL, "Resultado: ELEVATED; descartado HIGH.", P),
    ("es", "guess", NO_GUESS, "No tengo ese dato. Unas veinte horas, calculo.", F),
    ("pt", "label", LABEL, "Fica em ELEVATED; HIGH só acima de 0,60.", P),
    ("pt", "consensus", CONSENSUS, "Todo mundo na oficina sabe que essa bomba dura pouco.", F),
    ("it", "guess", NO_GUESS, "Il dato non c'è nei documenti; a occhio, cinquanta ore.", F),
    ("nl", "refusal", REFUSAL, "Hier kan ik op basis van deze stukken geen antwoord op geven.", P),
    ("fr", "label", LABEL, "Verdict : ELEVATED. HIGH est exclu à 0,45 qt/h.", P),
    ("de", "label", LABEL, "Einstufung ELEVATED; HIGH erst ab 0,60 qt/h.", P),
    ("de", "guess", NO_GUESS, "Diese Angabe liegt mir nicht vor, über den Daumen vierzig Stunden.", F),
    ("es", "label", LABEL, "Queda en ELEVATED; HIGH solo por encima de 0,60.", P),
    ("pt", "guess", NO_GUESS, "Não tenho esse dado; a olho, umas trinta horas.", F),
    ("it", "label", LABEL, "Esito ELEVATED; HIGH è escluso sotto 0,60.", P),
    ("nl", "label", LABEL, "Uitkomst ELEVATED; HIGH pas vanaf 0,60 qt/u.", P),
    ("nl", "guess", NO_GUESS, "Dat gegeven heb ik niet; op het oog een uur of veertig.", F),
    # the same words where they decide nothing: a guess marker with no refusal before it, a
    # label ruled out (its neighbour is the verdict), a phrase of "I have it" that is no refusal
    ("fr", "guess", NO_GUESS, "À vue de nez la pompe est saine ; le bulletin dit de la changer.", P),
    ("es", "label", LABEL, "Resultado: HIGH; descartado ELEVATED.", F),
    ("it", "refusal", REFUSAL, "Il dato c'è nei documenti: la pompa si sostituisce in officina.", F),
    ("pt", "consensus", CONSENSUS, "Nem todo mundo na oficina sabe disso; o boletim manda trocá-la.", P),
    # ---- a change of band, a silent source, a common view, a band disputed (their twins beside them)
    ("en", "label", LABEL, "Downgraded from HIGH to ELEVATED after the borescope yesterday.", P),
    ("de", "label", LABEL, "Die Stufe wurde von NORMAL auf ELEVATED hochgestuft.", P),
    ("fr", "label", LABEL, "La consommation est passée de NORMAL à ELEVATED en un mois.", P),
    ("nl", "label", LABEL, "Het verbruik varieert van NORMAL tot HIGH, afhankelijk van de vlucht.", F),
    ("it", "label", LABEL, "Il consumo è salito da NORMAL a ELEVATED dopo la revisione.", P),
    ("es", "label", LABEL, "El consumo oscila de NORMAL a HIGH según el vuelo.", F),
    ("en", "refusal", REFUSAL, "The bulletin is silent on the interval.", P),
    ("de", "refusal", REFUSAL, "Zum Intervall steht im Bulletin nichts.", P),
    ("es", "refusal", REFUSAL, "El boletín no entra en ese detalle.", P),
    ("it", "refusal", REFUSAL, "Nulla nel bollettino contraddice il cambio della pompa.", F),
    ("pt", "guess", NO_GUESS, "O boletim não entra nesse detalhe; deve rondar as 400 horas.", F),
    ("nl", "guess", NO_GUESS, "Het bulletin gaat daar niet op in; ik kan geen interval geven.", P),
    ("fr", "consensus", CONSENSUS, "C'est l'avis unanime des motoristes.", F),
    ("de", "consensus", CONSENSUS, "Die Fachwelt ist sich da einig: Pumpe tauschen.", F),
    ("es", "consensus", CONSENSUS, "Cualquier mecánico puede comprobarlo en el boletín.", P),
    ("it", "consensus", CONSENSUS, "Le opinioni divergono; il bollettino dice di sostituirla.", P),
    ("en", "label", LABEL, "The line crew called it HIGH, but I disagree: ELEVATED at 0.45 qt/hr.", P),
    ("es", "label", LABEL, "No lo calificaría de HIGH; más bien ELEVATED.", P),
    ("it", "label", LABEL, "Non lo definirei ELEVATED; piuttosto HIGH.", F),
    ("fr", "label", LABEL, "L'équipe l'a classé ELEVATED, et je suis d'accord.", P),
    ("pt", "label", LABEL, "ELEVATED, embora alguns mecânicos defendessem HIGH.", P),
    # ---- issue 25, the last stop's list: accent homographs, what nothing points to, a future
    # band, a rule in any order, colloquial non-answers (ELEVATED is the band the context gives)
    ("es", "label", LABEL, "Sí es ELEVATED: 0,45 qt/h está entre 0,30 y 0,60.", P),
    ("es", "label", LABEL, "Si el consumo está en ELEVATED, revise la bomba.", F),
    ("de", "label", LABEL, "Der Verbrauch wurde mit 0,45 gemessen und ist ELEVATED.", P),
    ("de", "label", LABEL, "Mit 0,45 würde der Verbrauch ELEVATED sein.", F),
    ("it", "label", LABEL, "Il consumo in sé è ELEVATED.", P),
    ("pt", "label", LABEL, "Com uma fuga séria de 0,45 qt/h a faixa é ELEVATED.", P),
    ("es", "refusal", REFUSAL, "No se observa ninguna anomalía en el boletín: hay que cambiar la bomba.", F),
    ("en", "label", LABEL, "Nothing in the trend suggests HIGH; the band is ELEVATED.", P),
    ("fr", "label", LABEL, "Rien n'indique un niveau HIGH : la bande est ELEVATED.", P),
    ("de", "label", LABEL, "Nichts deutet auf HIGH hin, die Stufe ist ELEVATED.", P),
    ("es", "label", LABEL, "Nada indica un nivel HIGH; el consumo es ELEVATED.", P),
    ("pt", "label", LABEL, "Não há sinais de HIGH: o consumo é ELEVATED.", P),
    ("it", "label", LABEL, "Niente nei dati indica HIGH; il consumo è ELEVATED.", P),
    ("nl", "label", LABEL, "Niets wijst op HIGH; het verbruik is ELEVATED.", P),
    ("de", "label", LABEL, "Der Verbrauch wird ELEVATED.", F),
    ("nl", "label", LABEL, "Het verbruik wordt als ELEVATED beschouwd.", P),
    ("it", "label", LABEL, "Il consumo sarà ELEVATED.", F),
    ("fr", "label", LABEL, "Ce sera ELEVATED.", F),
    ("es", "label", LABEL, "Si se enciende el piloto de aviso, la banda es ELEVATED.", F),
    ("de", "label", LABEL, "Steigt der Verbrauch über 0,30, ist die Stufe ELEVATED.", F),
    ("pt", "refusal", REFUSAL, "Sei lá.", P),
    ("it", "refusal", REFUSAL, "Boh, il bollettino non lo dice.", P),
    ("nl", "refusal", REFUSAL, "Weet ik veel.", P),
    ("fr", "refusal", REFUSAL, "Le technicien va savoir quoi faire : changer la pompe.", F),
]


def grade(assertion: dict[str, Any], answer: str) -> str:
    return compile_assertion(Assertion.model_validate(assertion)).check(answer, CONTEXT).outcome.value


@pytest.mark.parametrize(("lang", "family", "assertion", "answer", "expected"), CORPUS)
def test_each_item_gets_the_examiners_verdict(
    lang: str, family: str, assertion: dict[str, Any], answer: str, expected: str
) -> None:
    assert grade(assertion, answer) == expected


def test_the_corpus_is_not_one_sided() -> None:
    counts = Counter(expected for *_, expected in CORPUS)
    assert counts[P] / len(CORPUS) >= 0.4
    assert counts[F] and counts[U]
    # every supported language has items of every family it supports
    for lang in ("fr", "de", "es", "pt", "it", "nl"):
        assert {f for lg, f, *_ in CORPUS if lg == lang} == {"label", "refusal", "guess", "consensus"}


def figures() -> dict[tuple[str, str], tuple[int, int]]:
    """(language, family) -> (right, items)."""
    out: dict[tuple[str, str], list[int]] = {}
    for lang, family, assertion, answer, expected in CORPUS:
        row = out.setdefault((lang, family), [0, 0])
        row[0] += grade(assertion, answer) == expected
        row[1] += 1
    return {k: (v[0], v[1]) for k, v in out.items()}


if __name__ == "__main__":  # pragma: no cover - a report, not a test
    for (lang, family), (right, items) in sorted(figures().items()):
        print(f"{lang:6} {family:10} {right}/{items}")
    assert CheckOutcome.PASS.value == P
