"""The language graders' rules for the languages besides English, as data: ``languages/*.yaml``.

English is read by :mod:`proctor.graders._language` (its rules grew with the adversarial sets and
stay there). Each other supported language has one table beside this module, written from native
phrasing (not translated English), with these keys:

``negation_before``
    words or phrases that, right before a label (``fillers`` may stand between), negate or contrast
    it (French ``pas``, ``plutôt que``; German ``kein``, ``statt``); ``double_negation`` first
    names it (``rien d'autre que``, ``nichts anderes als``).
``not_only_before``
    right before a label, "not just" (``nicht bloß``, ``pas seulement``, ``no solo``, ``niet
    alleen``): a band set aside as not enough, negated, read before ``double_negation`` (German
    ``nur``): ``nicht nur HIGH, sondern CRITICAL_HIGH`` names CRITICAL_HIGH.
``nothing_points_to``
    right before a label, what nothing points to, or no evidence is found of: not the verdict
    (``rien ... n'indique``, ``nichts ... deutet auf``, ``aucun signe de``, ``kein Hinweis auf``);
    read as ``negation_before``.
``conditional`` and ``conditional_after``
    anywhere in the clause before a label, or right after it (one word may stand between): the
    label is hypothetical (``si``, ``falls``, ``entre``; ``HIGH solo se``, ``HIGH nur wenn``). A
    clause that opens with a condition word and ends at a comma also makes the clause after it
    hypothetical when the condition sets a threshold (a figure, or a word of ``threshold``:
    ``dépasse``, ``über``; or an event it waits for: ``s'allume``, ``aufleuchtet``): that is the
    consequent of a rule (``Si le débit dépasse 0,60, la bande est HIGH``); a label inside the
    condition (``le voyant ALARM``) is its consequent only when it ends it. A condition on
    something else is a caveat of a verdict (``Si le capteur est fiable, la bande est ELEVATED``).
    A point or comma between two digits (``0,60``, ``1.000,5``) ends no clause.
``counterfactual_after`` and ``takes_effect``
    a condition that waits for an event, read where the threshold's rule does not: right after a
    label (one word may stand between), the participle of a past counterfactual (``was het X
    geweest``, ``wäre es X gewesen``), and in a label's clause a band's step coming into force
    (``kicks in``, ``entra en vigor``, ``scatta``, ``greift``): in a sentence with a condition
    (a condition word, or a verb that opens it: ``Hadden we ... gevonden``), before or after the
    label for a step, the label is hypothetical. Times to come (``overnight``, ``cette nuit``)
    are words of ``threshold``: a condition on them waits for an event.
``condition_prepositions`` and ``counterfactual_before``
    a past counterfactual's condition may be a preposition opening the sentence (``Bij een melding
    binnen 7 dagen was het X geweest``, ``With a timely report it would have been X``): with the
    participle of ``counterfactual_after`` after the label, or the verb of ``counterfactual_before``
    right before it (a modal of the past too, words between: ``si ..., on aurait pu discuter d'un
    X``), the label is hypothetical.
``moves_to_before``
    right before a label, a verb of change in the present (``passa a``, ``geht auf``, ``moves
    to``): in the clause after a condition on any event (not only a threshold), the label is where
    the band would go, hypothetical (``Se a reinspeção correr bem, passa a PASS``). So is a label
    that opens that clause as the subject of a verb of ``conditional_mood`` after it (``Si ...,
    un X pourrait être envisagé``).
``purpose_after`` and ``applies_before``
    right after a label, what the band is for, its scope, or when it applies (``applies when``,
    ``s'applique quand``, ``gilt, wenn``, ``se aplica cuando``, ``geldt als``; German and Dutch
    also a verb of ``applies_before`` before the label and a condition of ``applies_if`` after
    it: ``Laut Regelwerk gilt X, wenn ...``, ``geldt X als alle ...``, not ``geldt X als
    eindoordeel``) (``ist für Sachen gedacht, die ...``,
    ``est prévu pour``, ``está pensado para``, ``serve para os``, ``è per i``, ``is bedoeld voor``;
    German and Dutch also after the verb before the label: ``ist X für Sachen gedacht``): a band's
    rule, not the verdict, as English ``X is for things we can fix`` is; so is a band confined to
    another scope (``X ne vaut que pour le registre``, ``X gilt nur für``, ``X only applies to``).
``relative_openers``
    right after a label, the word that opens a relative clause (``que``, ``den``, ``waar``; in
    English also the subject of a clause without one: "the X the maker wants"): a band's rule after
    that clause (``purpose_after``, or ``conditional_after`` other than a bare word of
    ``conditional``) is still its rule (``La X que pide el fabricante solo cabe si ...``).
``rule_met``
    after a band's rule (``purpose_after``, ``conditional_after``), in its sentence or the next,
    the case said to meet it (``and that is exactly the case of T7``, ``et c'est exactement le cas
    de la T7``, ``und genau das ist bei T7 der Fall``): the rule applied, the band is named, unless
    a negator stands in the phrase or in the two words before it (``mas não é o caso``).
``scope_before``
    a scope a source's band may be restricted to (a place, a time, a part: ``below``, ``por debajo
    de``, ``für die``, ``'s middags``): with a paper of ``source_nouns`` and a contrast after the
    band, and another band concluded after the contrast, the paper's band is not the answer's
    (:func:`scoped_elsewhere`); a paper's band alone is still the answer's reading.
``rating_verbs``, ``disowned_before`` and ``disputed_after``
    a band the answer will not give, or that others give: the verbs of rating may stand between
    a negation and its label, read as ``fillers`` (``no lo calificaría de HIGH``, ``non lo
    definirei HIGH``); a band others would argue for is not named, read as ``negation_before``
    (``algunos analistas defenderían HIGH``); a band the answer then disputes is denied, read
    as ``denied_after`` (``Le comité l'a classé HIGH, mais je ne suis pas d'accord``).
``condition_first``
    words that open a condition only first in their clause (German ``Läge der Wert über 0,60,
    wäre ...``: the verb first). Elsewhere they are other words: the rules read accents folded,
    and ``läge`` is then ``Lage`` (``Die Lage der Pumpe ist ELEVATED``).
``verb_first``
    finite verbs that open a condition when they open the sentence (German and Dutch put the
    verb first instead of a condition word: ``Steigt der Verbrauch über 0,60, ist die Stufe
    HIGH``, ``Stijgt het verbruik boven 0,60, dan is de band HIGH``); after a comma they go on
    with the sentence before (``..., liegt also über 0,30, ...``).
``consequence``
    words that open a condition's consequent (``then``, ``alors``, ``dann``, ``entonces``,
    ``então``, ``allora``, ``dan``): after a condition on any event, not only a threshold, the
    clause they open is the rule's consequent (``Gaat de rem onderuit, dan is het X``).
``copulas``
    verbs of being: a condition whose last word is a label after one of them (fillers between)
    holds its own consequent (``Als het stijgt is het HIGH, nu ELEVATED``), one after any other
    word names the event's subject (``Si se enciende el piloto ALARM, la banda es HIGH``: a rule).
``framing``
    words that make a condition a way of looking at the facts, not a condition on them (``si se
    compara con el límite de 0,60, el consumo es ELEVATED``: compared with, a verdict): a clause
    with one of them is not hypothetical for its condition word.
``change_before``
    right before a label: a change still to come, or a future (``will become``, ``will be``,
    ``deviendra``, ``sera``, ``wird``, ``wordt``, ``sarà``, ``será``): hypothetical, not the state now.
``present_passive``
    a change word of ``change_before`` that is the present passive there (German ``wird als
    HIGH eingestuft``, Dutch ``wordt als HIGH beschouwd``: classed as HIGH now).
``conditional_mood``
    a verb in the conditional mood in the clause before a label (``serait``, ``wäre``) makes it
    hypothetical when its sentence has a condition word or a figure before the label (``au-delà
    de 0,60 on serait HIGH``); alone (``ce serait plutôt ELEVATED``) it is a hedged verdict.
``denied_after``
    right after a label: it is denied (``est faux``, ``trifft nicht zu``, ``? nee``).
``alone_after``
    right after a label, "alone", "plain", "proper" (``a secas``, ``tout court``, ``vero e
    proprio``): it may stand, as a note in brackets may, between the label and a phrase of
    ``denied_after`` (``un SAFE a secas me parece demasiado optimista``), and before one of
    ``conditional_after`` (``Il X vero e proprio scatta solo con un livello 4``).
``phrase_prepositions``
    prepositions that open a short phrase between a label and a phrase of ``denied_after`` (``Un
    DETAIN per una carta su 12 sarebbe troppo``, ``Ein DETAIN wegen einer Karte wäre übertrieben``).
``conceded`` and ``rejected_after``
    a word of concession in a label's clause or right after it (``too``, ``auch``, ``aussi``), then
    after it a contrast that rejects it (``but that wouldn't``, ``aber das ... nicht``, ``mais ça
    n'``): the band is conceded, then denied (``the fever fits X too, but that wouldn't explain the
    oedema``). Without the concession (``fits X, but that doesn't explain ...``) it stands.
``retracted_after``
    after a label, in the rest of its sentence or the next, a clause that takes it back (``that was
    an overreaction``, ``me equivoqué``, ``das war übertrieben``, ``c'était excessif``): the label
    is not named when another label follows to correct it (``I first logged it as RED; that was
    an overreaction. AMBER.``), unless a negator or a condition stands before the retraction in
    its clause (``No fue un error``). With no label after it, the retraction may be of anything
    else the answer said, and the label stands.
``reported_after``
    right after a label, the source that gave it (``proposé par le transporteur``, ``vorgeschlagen
    vom Spediteur``, ``sugerido por``): read as ``reported_before``.
``since``
    a word of "since" before a past time (``seit gestern``, ``depuis hier``, ``since yesterday``):
    the time the band now began, so the label after it is named, not past.
``reported_before``
    right before a label, a source other than the answer giving it (``le bot indiquait``, ``laut
    Dashboard``, ``el sistema marcó``): when the answer names another label as its own, the
    reported one is not its verdict (``Le bot indiquait RED ; en réalité AMBER``). Another
    party's wish is one (``Die Angler hätten ... gern``, ``voudraient ...``, ``zouden ... graag``;
    ``Wir hätten gern X`` is the answer's own).
``past_before`` and ``past_after``
    right before a label (``yesterday``, ``la semaine dernière``) or right after it (``NORMAL
    last week``, ``NORMAL la semaine dernière``): a state the answer says is past, not the
    verdict (``| Band | ELEVATED (was NORMAL last week) |`` names ELEVATED); so is an earlier
    placement, with words between (``Eerst stond hij bij ons op X``).
``change_from``, ``change_to`` and ``change_words``
    a change of band, ``from X to Y`` (``von HIGH auf MEDIUM``, ``de HIGH à MEDIUM``, or ``HIGH →
    MEDIUM``) between two labels: with a word of change in its sentence (``went``, ``herabgestuft``,
    ``passé``, ``verlaagd``, a ``downgrade``), X is the past band and Y the verdict, whatever time
    dates the change (``Downgraded from HIGH to MEDIUM yesterday``), and a word of change right
    before ``from`` makes X past alone (``MEDIUM, herabgestuft von HIGH``); without one it is a range
    (``from LOW to HIGH depending on the day``), and neither is a verdict. A word of
    ``change_future`` before them in the sentence (a word of ``change_now``, ``now``, ``jetzt``, is a
    word of change there too, but not before ``from``) makes the change one still to come (``expected
    to move from MEDIUM to HIGH``, ``kan van MEDIUM naar HIGH gaan``): no verdict either.
    A word of ``negators`` a word or two before ``change_to`` denies the change (``niente
    declassamento a X``, "no downgrade to X"): X is not named, and the band before it stands.
``became_after``
    a change completed with a verb of becoming whose participle follows the label (``ist es X
    geworden``, ``is het X geworden``): the label before it is where the band was, as before a
    word of ``change_now`` (``est devenu X``, ``se ha convertido en X``, ``has become X``).
``rather_or_before``
    words of ``past_before`` that mean "rather" after a negated clause (Portuguese and Spanish
    ``antes``, Dutch ``eerder``): ``Não o classificaria como HIGH; antes MEDIUM`` names MEDIUM,
    also with an aside between (``No lo llamaría HIGH, como puso la planta; antes MEDIUM``) or a
    reason in a sentence of its own (``...; sin base. Antes MEDIUM``), and ``Antes HIGH, agora
    MEDIUM`` does not name HIGH.
``qualifier_fields``
    the names of fields that qualify a verdict rather than give it (confidence, ``Konfidenz``,
    ``confiance``): a label as their value (``Confidence: HIGH``, ``with HIGH confidence``) is
    not the verdict when the answer names another label (``Classification: MEDIUM``); alone
    it is.
``clause_breaks``
    conjunctions that end a clause (``mais``, ``sondern``), as English "but".
``purpose_before`` and ``requirement_after``
    a band's requirement: a word of purpose right before a label (``para``, ``pour``, ``für``) and
    a verb of needing in the conditional after it (``haría falta``, ``il faudrait``, ``bräuchte
    es``): "para EMERGENCY haría falta FC > 180" states what the band would need, no verdict.
``requirement_back``
    after a label (up to four words between), a requirement that refers back to it by a pronoun
    (``dafür bräuchte es``, ``pour cela il faudrait``, ``for that you'd need``), with a word of
    ``contrast`` before or just after it: what the band would need, no verdict (``Die Angler
    hätten gern X, aber dafür bräuchte es mehr als 20 %``).
``requirement_before``
    a verb of requiring right before a label that is its subject, where the verb comes second
    (``Laut Protokoll erfordert DEFINITE eine Reexposition``, ``Volgens het protocol vereist
    DEFINITE een rechallenge``): what the band requires, its rule, not a verdict. The same verbs
    after the label are ``conditional_after`` (``DEFINITE exige une réexposition``).
``negators`` and ``contrast``
    the language's words of negation (``nicht``, ``nessun``, ``não``) and of contrast (``mais``,
    ``aber``, ``maar``): where the label rules leave two labels named and one of them stands in a
    clause with a negator, or before a contrast with the expected one after it, the grader cannot
    tell which the answer gives, and says so (undetermined) rather than failing it.
``refusal``
    phrases of declining (``je ne peux pas``, ``keine Ahnung``, ``no consta``).
``source_silent``
    phrases of declining that say the source is silent (``dazu steht in den Unterlagen nichts``,
    ``le rapport n'aborde pas ce point``, ``el informe no entra en ese detalle``): read as
    ``refusal``. A source that says nothing *against* a verdict (``nichts, was gegen BBB
    spricht``) is an answer, not one of these. A phrase that ends in a point may end in a
    semicolon, colon or exclamation mark too, listed as such (``steht ... nichts;``).
``silent_openers`` and ``silent_verbs``
    "nothing in <the source> <says>": every opener (``nada en``, ``rien dans``, ``nichts in``)
    with every verb of saying or covering (``cubre``, ``ne traite``, ``regelt``), up to ten words
    of the source's name between them, read as ``source_silent``.
``connectives``
    the words a phrase of declining may hold where a ``~`` stands in it, up to two, each may be
    set off by commas (``je ne peux ~ pas``: ``je ne peux donc pas``, ``je ne peux, hélas, pas``;
    never ``je ne peux que confirmer``).
``source_nouns``, ``source_in`` and the phrases built from them
    the papers a source is (``documents``, ``Unterlagen``, ``stukken``, ``formulário``), and the
    prepositions that put something in them (``in``, ``dans``, ``uit``, ``no``). With them, phrases of
    declining are built from parts, up to five words of one clause between two parts:
    ``none_of`` + a paper + a verb of ``mention_verbs`` (``none of the documents gives the``,
    ``aucun des documents n'indique``, ``keines der Dokumente nennt``: verbs of saying, not of
    covering, ``Ninguna de las pólizas cubre inundaciones`` is an insurer's answer); a verb of
    ``appear_verbs`` or ``mention_verbs`` and ``in_none_of`` + a paper, in either order
    (``steht in keinem der Dokumente``, ``in geen van de stukken staat``); a verb of
    ``appear_verbs`` and a word of ``nowhere``, in either order (``n'apparaît nulle part``, ``wird
    nirgends genannt``), with no figure after the verb (``De druk staat nergens boven 0,60``: where a
    value is not) and nothing but one word or ``source_in`` after ``nowhere`` when it comes second
    (``nowhere near 0.60`` is no silence); ``nowhere`` + ``source_in`` + a paper (``blijkt nergens
    uit de stukken``); ``there_is_no`` and ``source_in`` + a paper, in either order (``there's no
    CRRT dosing in the formulary``, ``Im Formular gibt es keine Dosierung``); ``neither`` ... ``nor``
    ... a verb of ``mention_verbs``, a paper or a code (``HX-200``) among what they join
    (``neither HX-200 nor the adjuster's report mentions it``; not ``neither pump nor valve``).
``findings``
    what a source may find absent (a leak, a sign, a doubt, nothing): right after ``there_is_no``,
    or after the verb of a paper that says none of it, it makes the phrase an answer, not a
    silence (``There is no leak in the report: NORMAL``, ``Aucun des rapports n'indique de
    fissure``, ``Non c'è alcun dubbio nel rapporto``, ``Aucun document ne dit le contraire``); so
    does a figure in the rest of the phrase's clause (``Keiner der Berichte nennt einen Wert über
    0,60``: a value none reaches; a code such as ``QX-14`` is no figure).
``not_said``, ``nothing_words``, ``about_words`` and ``unknown_words``
    more phrases of declining built with ``source_nouns``: a paper that does not say it
    (``El informe no lo dice``, ``Der Bericht sagt es nicht``, ``no lo dice el informe``; a
    clause of its own, and not of a person), nothing in the papers about it with no verb
    (``Rien dans les documents sur le coût``), unknown from them (``Onbekend uit de stukken``).
    With no verb either, ``none_of`` + a thing + a paper is a clause of declining when nothing but
    a word of "either" follows the paper (``Aucune date dans les notes``, ``Kein Datum im
    Bericht``; not ``No girder in the report is damaged``, nor a finding: ``no leak in the
    report``); and a verb of ``mention_verbs`` may come before its ``none_of`` subject, with no
    finding before it in its clause (``einen Termin nennt keines der Papiere``, ``no lo menciona
    ninguno de los informes``).
``absent_from``
    a thing that is not in a paper: the negated verb of being (``n'est pas``, ``não está``,
    ``steht nicht``, ``isn't``) right before ``source_in`` + a paper, nothing but a word of "either"
    after it (``O custo não está no relatório``, ``The date isn't in the notes either``).
``not_have_fronted`` and ``anywhere``
    the thing put first, then the speaker without it (``Een topsnelheid heb ik niet``, ``La velocidad
    máxima no la tengo``; not a finding: ``Bedenken habe ich nicht``); and the words of "anywhere"
    that say nowhere after a negation: ``there_is_no`` or ``none_of`` + a thing + ``nowhere`` or
    ``anywhere`` (``There's no logged speed anywhere``), or the thing first, then ``absent_from`` or
    ``there_is_no`` and nowhere (``La data non c'è da nessuna parte``), a clause of its own. A paper
    whose verb of ``mention_verbs`` (by its first word) has ``none_of`` the thing after it also
    declines (``El expediente no fija ninguna fecha``, ``Die Akte legt kein Datum fest``).
``not_have``
    the speaker without the thing (``no tengo la``, ``je n'ai pas le``, ``ich habe das ... nicht``),
    a clause of its own of up to four more words, not ended by a colon, and no finding nor "the
    least" (``No tengo la edad ósea``; not ``No tengo la menor duda``, ``Je n'ai pas la moindre
    hésitation : ...``, nor ``I don't have the authority to close it``): read as declining.
``unknown_words`` as a field's value
    a field whose value says it is not stated (``Data di revoca: non indicata``, ``Lift date: not
    given``, ``Datum: nicht angegeben``), a line or sentence of its own: read as declining.
``not_recorded``
    the asked thing, as the subject of a short clause of its own, never measured, recorded, known or
    settled (``The wind speed isn't recorded``, ``De grootte is nog niet vastgesteld``, ``Einen
    Windwert gibt es nicht``), nor existing or come in yet (``Die score bestaat niet``, ``is still
    pending``, ``steht noch aus``): up to seven words of subject, none a figure nor a finding (``Ein
    Leck wurde nicht festgestellt`` is an answer), and at most two words after it before the clause
    ends (not ``wasn't recorded until 14:00``, nor ``was not recorded as a breach``): read as declining.
``nothing_taken``
    nothing measured or recorded (``Nothing was measured that day``, ``An dem Tag wurde nichts
    gemessen``), a clause of its own with no figure (not ``Nothing was measured above 0.8 mg/L``).
``value_words`` and ``value_for``
    what an asked value is called (``result``, ``Wert``, ``referto``): ``none_of`` one with no verb,
    only what it is for after it (``No result for LDH``, ``Nessun punteggio per la bozza di marzo``),
    or ``there_is_no`` one in a clause of its own (``Für den 21. Juli liegt kein Ammonium-Wert vor``,
    ``There's no March score to give you``) declines; not one a finding qualifies (``no abnormal
    values``), nor one a verb or a relative goes on from (``Ningún valor supera el límite``). A paper
    whose verb of ``mention_verbs`` is negated before it, the thing in a few words after it, declines
    too (``El informe no fija la duración``).
``known_words``
    with ``none_of`` and no verb, no such thing known (``No date known for the reinforcement``,
    ``Geen datum voor de verzwaring bekend``, ``Kein Datum bekannt``), a clause of its own: read as
    declining; and a paper that says nothing about the thing (``says nothing about its weight``,
    ``ne dit rien sur``: the phrases of ``not_said`` with a word of ``nothing_words``), the thing in
    a few words that end the clause, no finding among them.
``missing_verbs``
    the thing missing, with its paper or none, in either order (``Een bedrag ontbreekt in het
    logboek``, ``Im Bericht fehlt die Dosis``, ``Manca la data``, "The fee is missing from the
    file"), a clause of its own of a few words: read as declining; not what nothing is missing
    from (``Es fehlt nichts``), nor "a little" (``Falta poco``), nor a finding.
``open_after`` and ``doubt_fillers``
    after a paper's silence and a word of "so", a clause with none of ``open_after`` (asking,
    checking, waiting), no negation, no word of ``unknown_words`` and no phrase of declining is the
    answer's own conclusion (``así que habrá sido el lunes``): the silence declines nothing; an
    interjection of ``doubt_fillers`` (``Boh``, ``Dunno``) before a comma and a verdict in capitals
    with no hedge is filler (``Boh, a me sembra CLOSE_POOL``), alone a decline.
``unsure_hedges``
    a phrase of declining that only hedges the speaker's confidence (``je ne suis pas sûr``, ``ich
    bin mir nicht sicher``): followed in its sentence by a contrast and a verdict or a figure (``Je
    ne suis pas sûr à 100 %, mais je pencherais pour X``) it is an answer, not a decline.
``hour_before`` and ``hour_words``
    a time of day after one of ``hour_before`` (``pour 10 h``, ``für 10 Uhr``, ``para las
    10:00``, ``alle 10``, ``voor 10:00``; a bare hour only before a clause's end or a negator) is a
    qualifier of the declined thing, no figure the paper does not reach: the phrases of declining
    read it as a word (``Aucune des pièces ne donne la hauteur de houle pour 10 h``).
``day_before``
    a day of the month after one of these (``del 21``, ``vom 21.``, ``du 21``, ``van de 21e``,
    ``of the 21st``; a bare day only before a month, a clause's end or a negator) qualifies the
    declined thing as an hour does: no figure (``Il valore del 21 non c'è da nessuna parte``).
``stated_before``
    words that give what the sources state (``What I do know:``, ``Ce que je sais :``, ``Cá
    temos``): a figure after them in their sentence, unhedged, with a value the context states, is
    restated, no guess, whatever word counts it (``41 emprunts`` for ``checkouts 41``).
``analogy_words`` and ``self_guess``
    after a decline, a figure the context states is a guess when the answer borrows it for the
    declined thing: hedged and said to be "also" or "like" another's (``Wahrscheinlich ebenfalls
    500 kg wie Zug 7``), or called a guess after it in its sentence (``..., aber das ist geraten``);
    a likening word may open the phrase after it (``rond de 2,4 mg/L, net als de dag erna``), and
    a comparison with the figure is one too (``knapp über den geforderten 2,7 bar``, ``just above``).
``guess_markers`` and ``numbers``
    a guessed verdict is an upper-case word after a marker (``probablement HIGH``); ``numbers``
    are number words with their values (no word for one: it is also the article). Several of
    them write one number (``doscientos cincuenta``, ``treinta y cinco``, ``vingt-cinq``), and so
    do those glued into one word (``fünfundzwanzig``, ``vijfentwintig``, ``trentacinque``).
``units``, ``months``, ``rough_amounts`` and ``designators``
    how figures are read, in every table at once (a context in English grounds an answer's
    figure in French): ``units`` maps a unit written after a figure to the unit it names, the
    same in every table (``minutos: minute``, ``Stunden: hour``, ``pour cent: "%"``, ``euros:
    eur``; ``€``, ``$`` and ``£`` before or after a figure, and a currency's code before it, are
    read in code), so ``dos 5 minutos`` states the context's ``5 minutes``; ``months`` maps the
    months to their numbers: a day before one (``22. Januar``, ``14 de marzo``, ``1er mars``, in
    English also after one: ``March 14``) is that date, stated by the context's ``22 January``;
    ``rough_amounts`` maps a rough amount of a unit with no number (``un par de semanas``, ``ein
    paar Wochen``, ``a couple of weeks``) to its size (2: a couple, 3: a few or several): a
    figure, stated only by a rough amount of the same size and unit; a whole number right after
    a word of ``designators`` (``letto 14``, ``Pumpe 2``) names a thing, not a quantity. The
    ``numbers`` of a thousand, a million or a billion are words of magnitude: after digits the
    figure counts in them (``250 mil euros``), after a rough amount it is a rough one (``ein paar
    Millionen``).
``one_words`` and ``rough_after``
    the words for one that are also articles (``un``, ``einen``, ``een``): one of them and a unit
    after a guess marker (``environ un mois``, ``etwa einen Monat``, English ``about a month``)
    or before a phrase of ``rough_after`` (``un mes o así``, ``a month or so``) is a figure of
    one, stated by the context's ``1 month``, ``one month`` or ``a month``.
``number_nouns``
    words of ``numbers`` that are also nouns (French ``quarantaine``: about forty, and quarantine):
    a number only right after a word for one or a number (``une quarantaine de kystes``, ``deux
    dizaines``); ``en quarantaine``, ``la quarantaine`` name no figure.
``half_after``
    a half after a number word or its unit is half more (``dos y medio``, ``trois heures et
    demie``), after a word for one or a unit alone one and a half (``el metro y medio``).
``consensus`` and ``claim_negators``
    claims of agreement (``les experts s'accordent``, ``unbestritten``); a negator earlier in the
    claim's clause makes it no claim (``pas tous les experts``).
``common_view``
    claims of agreement without a verb of agreeing, read as ``consensus``: a view said to be
    everyone's (``c'est l'avis unanime des spécialistes``, ``die Fachwelt ist sich da einig``, ``è
    opinione diffusa tra``), or what any member of a trade would tell you (``qualquer analista
    diria o mesmo``, ``elke analist zal je hetzelfde vertellen``); never what any member *can*
    do (``cualquier analista puede comprobarlo``).
``common_practice``
    a practice said to be everyone's, read as ``consensus`` (``standard practice among SREs``,
    ``la práctica habitual entre los mecánicos``, ``gilt in der Branche als Standard``,
    ``toda a gente faz assim``); a practice a document sets (``the standard practice in AMM
    72-00``) is not one.
``group_prepositions_before``
    prepositions that put a claim's group before it (``entre``, ``unter``, ``onder``): "Entre los
    médicos de familia hay consenso" names who agrees, as a word of "all" or "any" does before
    a group ("tous les généralistes vous diront la même chose").
``groups`` and ``group_prepositions``
    the groups a claim names, in it or after one of the prepositions (``hay consenso entre los
    mecánicos``), each word mapped to the group's English name (``mecánicos: mechanic``), so a
    claim by mechanics needs a document stating the mechanics' agreement, in any language. A
    word may have several names (``perito: expert/adjuster/assessor``): any of them states it.
    A word no table maps is a group of its language (``fr:fraude``, :func:`open_group`),
    stated by documents that state that word's agreement, in its language or as a name in
    another (``das Appeals Board``); never by another group's. The words a phrase's gap holds
    (``cualquier profesor te diría``, ``elke collega ... zou hetzelfde zeggen``) are its groups.
``role_heads`` and ``role_fields``
    a role by its head and its field, each by its English names, both needed stated: a compound
    in German and Dutch (``Instandhaltungsleiter``, ``onderhoudschef``: the maintenance
    supervisor; a linking ``s``, ``en`` or doubled consonant aside), the words of a subject
    elsewhere (``la jefa de mantenimiento``). A compound whose field no table reads is
    undetermined where the head's agreement is stated: a document may name the role in English.
``agreement_predicates`` and ``agreement_openers``
    agreement by the subject the answer names before the predicate, in its clause (list items
    before a comma included) or inside its gap (``les analystes fraude sont unanimes``,
    ``darüber sind sich die Makler ... einig``), or right after an opener (``ne sono convinti
    tutti i direttori``): a claim by that subject, whatever its noun.
``body_predicates`` and ``bodies``
    agreement in the singular (``está de acuerdo``, ``concorda``, ``staat daar ... achter``), a
    claim only by a subject with a word for a body (``claustro``, ``conselho``; ending a compound
    too: ``faculteitsraad``, ``Prüfungsausschuss``); ``el informe está de acuerdo`` is none.
``group_from`` and ``group_to``
    a range after a claim and its comma names who agrees (``sono tutti d'accordo, dal TSO al
    regolatore``: the TSO and the regulator), each end a group of its own whose agreement must be
    stated (:func:`named_group`).
``group_including``, ``group_included`` and ``group_and``
    an inclusion names who agrees too, each of its groups one whose agreement must be stated
    (:func:`named_group`): right after a claim (``tout le monde est d'accord, y compris le gardien
    du refuge``, ``alle sind sich einig, der Hüttenwirt eingeschlossen``, ``de huurder staat
    erachter en de verhuurster ook``) or set off by commas or brackets inside it (``Todos,
    incluido el guarda, están de acuerdo``), a word of ``group_including`` before its groups or of
    ``group_included`` after them, the groups joined by a word of ``group_and``. A claim whose
    subject names no one but "all" (``Todos están de acuerdo``) is one when an inclusion or a range
    follows it.
``subject_fillers``, ``subject_stops``, ``first_person`` and ``not_people``
    reading that subject: words that name no group (articles, quantifiers, pronouns,
    prepositions); words after which it starts (``que``, ``dass``); the speaker, which makes it
    no claim (``wij zijn het eens``); documents and figures, which agree with each other and
    make it no claim (``les deux rapports sont d'accord``). A subject with no other word (``ils
    sont d'accord``) claims nothing, nor does a negator in it or its clause, nor a question.

``agreement_replies``
    a reply that agrees, elliptical and in the first person (``Agreed.``, ``D'accord.``,
    ``Einverstanden.``, ``Conforme.``, ``Combinado.``, ``Va bene.``, ``Akkoord.``): first on a
    line or in a quote, and ended there by a point, a comma, an exclamation mark, a dash or the
    line's end, it states the agreement of the document's speaker (as ``we agree`` does); never a
    word inside a clause (``Agreed price: 255 \u20ac``, ``the agreed plan``), a question (``Agreed?
    Let me check first.``) nor a negated reply (``Not agreed.``).

``agreement_replies_with``
    the same reply with what it agrees with after it (``Agree with the prune: ...``, ``D'accord
    pour la taille``, ``Einverstanden mit ...``, ``Akkoord met ...``): an email's first words
    often are, and they are the speaker's agreement just as ``Agreed.`` is.

``breadth_words`` and ``unanimity_words``
    a claim over a whole class or trade (``any planning officer``, ``tous les inspecteurs``,
    ``no setor ferroviário``, ``the whole CAB``), or a group's unanimity (``l'avis unanime des
    inspecteurs``, with a group only): one or two people of the class agreeing do not support it,
    only a document stating agreement as broad (one of these words, the class in the plural, a
    body) does. ``pair_words`` (``tous les deux``) are read as no word of breadth, and ``all_words``
    (``all``, ``todos``) only where they follow no list (``A, B and C all back it``: those three).

``homographs`` and ``accents_optional``
    words whose accent makes them another word than their accent-free spelling (Spanish ``sí``
    (yes) and ``si`` (if), German ``würde`` (would) and ``wurde`` (was)). The rules read such a
    word, in the answer and in the tables, with its accent: ``si`` never matches ``Sí es
    ELEVATED``, ``würde`` never ``wurde``. Every other word is read with its accents folded
    (:func:`rules_text`). An answer that writes no accent at all may have left them out (a
    keyboard without them): in a language whose writers do that (``accents_optional: true``:
    French, Spanish, Portuguese, Italian, Dutch) its words are read as before, a table's
    ``sería`` matching ``seria``, and ``si`` is what it is written as, "if" (``Si es
    ELEVATED.``, with no accent anywhere, is a condition with no consequent: it names no band).
    German writes a missing umlaut out (``wuerde``), so ``wurde`` is always "was".

Phrase syntax: words are matched whole, in canonical form (accents folded, so ``plutôt`` matches
``plutot`` too, except the homographs above; an umlaut also written out, ``würde`` matching
``wuerde``), in any case, a run of spaces matching any whitespace; ``...`` stands for up to
five words of the same clause (``ne ... que``: no ``.;:!?`` between); last in a phrase, up to five
words before what follows it (``qualcuno ... potrebbe ...`` before a label); ``~`` for up to two
``connectives`` (in a phrase of declining).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from proctor.graders._canon import canonical, canonical_text, text_cache
from proctor.graders._languages import SUPPORTED_LANGUAGES

#: The languages with a table here (English's: only what ``_language`` does not already read).
TABLE_LANGUAGES: tuple[str, ...] = SUPPORTED_LANGUAGES

_KEYS = (
    "negation_before",
    "disowned_before",
    "nothing_points_to",
    "double_negation",
    "fillers",
    "rating_verbs",
    "conditional",
    "condition_first",
    "verb_first",
    "copulas",
    "conditional_after",
    "conditional_mood",
    "counterfactual_after",
    "takes_effect",
    "condition_prepositions",
    "counterfactual_before",
    "moves_to_before",
    "not_only_before",
    "purpose_after",
    "applies_before",
    "rule_met",
    "consequence",
    "applies_if",
    "relative_openers",
    "scope_before",
    "framing",
    "threshold",
    "change_before",
    "present_passive",
    "denied_after",
    "alone_after",
    "disputed_after",
    "retracted_after",
    "reported_before",
    "reported_after",
    "past_before",
    "past_after",
    "since",
    "rather_or_before",
    "change_from",
    "change_to",
    "change_words",
    "change_future",
    "change_now",
    "became_after",
    "qualifier_fields",
    "clause_breaks",
    "negators",
    "contrast",
    "purpose_before",
    "requirement_after",
    "requirement_before",
    "requirement_back",
    "phrase_prepositions",
    "conceded",
    "rejected_after",
    "refusal",
    "source_silent",
    "silent_openers",
    "silent_verbs",
    "connectives",
    "source_nouns",
    "source_in",
    "none_of",
    "in_none_of",
    "nowhere",
    "appear_verbs",
    "there_is_no",
    "findings",
    "neither",
    "nor",
    "mention_verbs",
    "not_said",
    "absent_from",
    "not_have",
    "not_have_fronted",
    "anywhere",
    "open_after",
    "doubt_fillers",
    "unsure_hedges",
    "nothing_words",
    "about_words",
    "unknown_words",
    "not_recorded",
    "nothing_taken",
    "value_words",
    "value_for",
    "known_words",
    "missing_verbs",
    "hour_before",
    "hour_words",
    "day_before",
    "guess_markers",
    "analogy_words",
    "self_guess",
    "stated_before",
    "designators",
    "one_words",
    "number_nouns",
    "rough_after",
    "half_after",
    "consensus",
    "common_view",
    "common_practice",
    "claim_negators",
    "group_prepositions",
    "group_prepositions_before",
    "agreement_predicates",
    "agreement_openers",
    "body_predicates",
    "bodies",
    "group_from",
    "group_to",
    "subject_fillers",
    "subject_stops",
    "first_person",
    "not_people",
    "agreement_replies",
    "group_including",
    "group_included",
    "group_and",
    "agreement_replies_with",
    "breadth_words",
    "unanimity_words",
    "pair_words",
    "all_words",
)
_B = r"(?<![\w'])"  # a phrase starts a word
_E = r"(?![\w])"  # and ends one


def _word(word: str, keep: frozenset[str]) -> str:
    """A table's word as the rules read it: lower case, accents folded unless it is a homograph."""
    low = unicodedata.normalize("NFC", word).lower()
    return low if low.rstrip("*") in keep else canonical_text(word).lower()


_UMLAUTS = frozenset("äöü")
_UMLAUTS_OUT = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue"})


def _word_pattern(word: str, keep: frozenset[str]) -> str:
    """A table's word as a regex: as the rules read it (:func:`_word`) or, when it has an umlaut,
    with the umlaut written out as a keyboard without one writes it (``würde``: ``wuerde``)."""
    read = re.escape(_word(word, keep).rstrip("*"))
    low = unicodedata.normalize("NFC", word).lower()
    if not _UMLAUTS.intersection(low):
        return read
    return f"(?:{read}|{re.escape(canonical_text(low.translate(_UMLAUTS_OUT)).rstrip('*'))})"


def _phrase(p: str, keep: frozenset[str] = frozenset(), between: str = "") -> str:
    """One phrase as a regex (see the module documentation); the words in ``keep`` keep their
    accents, and ``~`` stands for ``between`` (the connectives a phrase of declining may hold)."""
    raw = p.split()
    words = [_word(w, keep) for w in raw]
    text = " ".join(words)
    parts = []
    for i, word in enumerate(words):
        if word == "...":
            parts.append(_GAP)  # words of one clause: no mark that ends one
            continue
        if word == "~":
            parts.append(between)
            continue
        w = _word_pattern(raw[i], keep) + (r"\w*" if word.endswith("*") else "")
        # before a gap, the words put in between may be set off by a comma ("kann ich, ehrlich
        # gesagt, nicht"): the gap's own words carry theirs
        gap_next = i + 1 < len(words) and words[i + 1] == "..."
        # and so may the connectives ("je ne peux, hélas, pas")
        gap_next = gap_next or (i + 1 < len(words) and words[i + 1] == "~")
        parts.append(w + (r"\s*" if word.endswith("'") else r"[,;]?\s+" if gap_next else r"\s+"))
    body = "".join(parts)
    if body.endswith((r"\s+", r"\s*")):  # not after a gap that ends the phrase: the label follows it
        body = body[: -len(r"\s+")]
    lead = "" if text[:1] in "?,-" else _B
    tail = "" if text[-1:] in ".?,-" or text.endswith("'") else _E
    return lead + body + tail


def _alternation(phrases: Iterable[str], keep: frozenset[str] = frozenset(), between: str = "") -> str:
    ordered = sorted({_phrase(p, keep, between) for p in phrases}, key=len, reverse=True)
    return "(?:" + "|".join(ordered) + ")" if ordered else "(?!)"


#: A verb in the conditional mood by its ending, in the Romance languages ("justifierait",
#: "convendría", "bastaria", "servirebbe")
_CONDITIONAL_VERB = r"[^\W\d_]+(?:rait|raient|r\u00eda|r\u00edan|ria|riam|rebbe|rebbero)"


#: Words of question that open what a paper does not give ("combien", "cuántas", "wie viel")
_ASKING = (
    r"(?:how\s+(?:many|much|long|often)|when|combien|quand|cu[a\u00e1]nt[oa]s?|cu[a\u00e1]ndo|quant[oa]s?|"
    r"quant[oa]\s+tempo|quando|wie\s+(?:viel|viele|lange|oft)|wann|hoeveel|hoe\s+lang|wanneer)\b"
)


#: up to five words of one clause (``...``), and up to two (an article, an adjective)
_GAP = r"(?:(?:[^\s.;:!?]|(?<=\d)[.,](?=\d))+\s+){0,5}?"  # a figure's point ("15.000") ends no clause
_FEW = r"(?:[^\s.;:!?]+\s+){0,2}?"


def _bare(phrases: Iterable[str], keep: frozenset[str], compounds: bool = False) -> str:
    """The phrases as one alternation that may follow an elided article (``l'annexe``,
    ``nell'allegato``): a word starts there, or after one or two letters and an apostrophe; in a
    language that writes compounds as one word, also at the end of one (``Prüfbericht``,
    ``inspectierapport``)."""
    ordered = sorted({_phrase(p, keep).removeprefix(_B) for p in phrases}, key=len, reverse=True)
    if not ordered:
        return "(?!)"
    head = r"(?<![\w'])\w*" if compounds else r"(?<![\w'])(?:\w{1,5}'\s?)?"
    return rf"(?:{head}|(?<='))(?:" + "|".join(ordered) + ")"


def _declining_grammar(
    t: Mapping[str, list[str]], keep: frozenset[str], compounds: bool = False
) -> tuple[tuple[tuple[re.Pattern[str], ...], re.Pattern[str]], ...]:
    """The phrases of declining built from parts (see ``source_nouns`` in the module
    documentation): the source holds nothing, none of it says, it is nowhere, neither names it.
    Each with the parts it needs, found in the text before the phrase is looked for (most texts
    have none of them: the phrase, which opens with a common word, is not tried at every word)."""

    def alt(key: str) -> str:
        return _alternation(t[key], keep)

    noun = _bare(t["source_nouns"], keep, compounds)
    place = rf"{alt('source_in')}\s*{_FEW}{noun}"  # "in the formulary excerpt", "uit de stukken"
    # verbs of saying, not of covering ("none of the policies covers flood damage" is an answer)
    saying = alt("mention_verbs")
    showing = _alternation(t["appear_verbs"] + t["mention_verbs"], keep)
    # what is absent is a finding, not a silence ("no leak in the report", "nothing in it
    # contradicts"), and so is what a paper does not say ("aucun des rapports n'indique de fissure")
    # (one word may stand between, not one with an elided article: "riporta l'ora dell'allarme"
    # names the hour)
    absent = rf"(?!\s*(?:[^\s.;:!?']+\s+)?{_bare(t['findings'], keep)})"
    # and so is a value none of it reaches ("Keiner der Berichte nennt einen Wert über 0,60",
    # "In the report there is no value above 0.60"): no figure in the rest of the clause (a code,
    # "QX-14", is no figure)
    # (unless what it does not give is asked after a word of question: "ne précise combien d'heures
    # elle a dormi la nuit du 14 au 15", "dice cuántas horas durmió antes del servicio del 15")
    # (a dash ends the clause: "liegt mir keine Wellenhöhe vor - die Vorhersage nennt nur den Wind (22 kn)")
    absent += (
        rf"(?:(?=\s+(?:[^\s.;:!?]+\s+)?{_ASKING})|(?!(?:(?!\s-\s)[^.;:!?,\n\u2013\u2014])*(?<![\w-])\d))"
    )
    code = r"(?<![\w-])[a-z]+-?\d[\w./-]*"
    # (the value may end a hyphenated compound: "Ammonium-Wert")
    value = rf"(?:(?<![\w'])[^\W\d_]+-)?{_bare(t['value_words'], keep, compounds)}"
    # up to two words before the value, none a finding nor a speaker; none after it, and no figure
    unsaid = _alternation(t["findings"] + t["first_person"] + t["nothing_words"], keep)
    before_value = rf"(?:(?!{unsaid})[^\s\d.;:!?,]+\s+){{0,2}}?"
    not_found = rf"(?!\s*(?:[^\s.;:!?']+\s+)?{_bare(t['findings'], keep)}){absent}"
    # a word of the rest of its clause: no verb of being nor negation ("Aucune valeur n'est hémolysée")
    rest = rf"(?!(?!{alt('nor')}){alt('negators')}|n'|{_COPULA})[^\s\d.;:!?,]+"
    # (nor a relative clause after a comma: "Es gibt keinen Wert, der den Grenzwert überschreitet")
    no_relative = rf"(?!\s*,\s*(?:{_RELATIVES}|de[rmn]\b))"
    none_of, in_none_of, nowhere = alt("none_of"), alt("in_none_of"), alt("nowhere")
    # not saying a thing, with the thing after it (not "says nothing", which may go on: "the log says
    # nothing unusual happened")
    nothing = set(t["nothing_words"])
    not_named = _alternation([p for p in t["not_said"] if not nothing & set(p.split())], keep)
    # (ending in "about": "says nothing about", "ne dit rien sur"; not "says nothing unusual happened")
    said_nothing = _alternation(
        [p for p in t["not_said"] if nothing & set(p.split()) and p.split()[-1] in _ABOUT_LAST], keep
    )
    there_is_no, neither = alt("there_is_no"), alt("neither")
    # "nowhere", and "anywhere" after a negation ("no logged speed anywhere")
    nowhere_any = _alternation(t["nowhere"] + t["anywhere"], keep)
    # a thing of a few words opening its clause: no figure, no finding, no negation nor speaker
    stops = _alternation(t["findings"] + t["negators"] + t["first_person"] + t["nothing_words"], keep)
    thing = rf"(?:(?!{stops})[^\s\d.;:!?,]+\s+){{1,5}}?"
    absent_nowhere = _alternation(
        [p for p in t["absent_from"] if any(n in p for n in t["nowhere"] + t["anywhere"])], keep
    )
    # the verbs of saying by their first word, no article after it ("sets a" → "sets", "legt ... fest"
    # → "legt"): "sets no date", "legt kein Datum fest"
    articles = set(t["fillers"])
    heads = _alternation(
        sorted(
            {
                " ".join(ws[:-1] if len(ws) > 1 and ws[-1] in articles else ws)
                for p in t["mention_verbs"]
                if (ws := p.split(" ... ")[0].split())
            }
        ),
        keep,
    )
    # where a clause starts, and where one ends after a paper (a word of "either" may stand between)
    opens = r"(?:^|(?<=[.;:!?,\n\u2013\u2014]))\s*"
    ends = rf"(?:\s+{_EITHER})?\s*(?:[.;:,!?\n\u2013\u2014)]|\s-\s|$)"
    grammars = [
        # "Aucune date dans les notes", "Kein Datum im Bericht", "No date in the notes": no verb, a
        # clause of its own (not "no leak in the report", a finding; nor "No girder in the report is
        # damaged", which goes on)
        ((none_of, noun), rf"{opens}{none_of}{absent}\s*(?:[^\s.;:!?,]+\s+){{1,3}}?{place}{ends}"),
        # "O custo não está no relatório", "The date isn't in the notes either"
        ((alt("absent_from"), noun), rf"{alt('absent_from')}\s+{place}{ends}"),
        # "einen Termin nennt keines der Papiere", "no lo menciona ninguno de los informes": the verb
        # before its subject, and no finding before it ("Risse nennt keines der Papiere")
        (
            (none_of, noun),
            rf"{opens}(?:(?!{_bare(t['findings'], keep)})[^\s.;:!?,]+\s+){{0,7}}?{saying}\s+{none_of}"
            rf"\s*(?:[^\s.;:!?]+\s+)?{noun}{ends}",
        ),
        # "No tengo la edad ósea", "I don't have the bone age": the speaker lacks the thing, named in a
        # short clause of its own (not "No tengo la menor duda", a finding; nor "I don't have the
        # authority to ...", which goes on)
        # (a short phrase before it may say what for: "Für SP-2 liegt mir keine Tragfähigkeit vor",
        # "Voor SP-2 heb ik geen WLL"; and the thing may be named with a code: "del SP-2")
        (
            (alt("not_have"),),
            rf"{opens}{_FRONTED}{alt('not_have')}{absent}(?!\s*{_LEAST})"
            rf"(?:\s*(?:[^\s\d.;:!?,]+|{_CODE})){{0,5}}?\s*(?:[.;,!?\n\u2013\u2014]|\s-\s|$)",
        ),
        # "none of the documents gives the time", "aucun des documents n'indique", "keines der Dokumente"
        # (a count of the papers may stand before them: "none of the three documents sets a deadline")
        ((none_of, noun), rf"{none_of}\s*(?:[^\s.;:!?]+\s+){{0,2}}?{noun},?\s+{_GAP}{saying}{absent}"),
        # "steht in keinem der Dokumente", "in geen van de stukken staat"
        ((in_none_of, noun), rf"{showing}\s+{_GAP}{in_none_of}\s*(?:[^\s.;:!?]+\s+)?{noun}{absent}"),
        ((in_none_of, noun), rf"{in_none_of}\s*(?:[^\s.;:!?]+\s+)?{noun},?\s+{_GAP}{showing}{absent}"),
        # "n'apparaît nulle part", "wird nirgends genannt"; "nowhere in the documents" (not "n'apparaît
        # nulle part au-dessus de 0,60": where a value is not; no figure between)
        (
            (nowhere,),
            rf"{alt('appear_verbs')}\s+(?:[^\s\d.;:!?]+\s+){{0,5}}?{nowhere}"
            rf"(?=(?:\s+[^\s.;:,!?]+)?\s*(?:[.;:,!?)\n\u2013\u2014]|\s-\s|$)|\s+{alt('source_in')})",
        ),
        ((nowhere,), rf"{nowhere}\s+{_GAP}{alt('appear_verbs')}(?![^.;:!?\n]*\d)"),
        ((nowhere, noun), rf"{nowhere}\s*{place}{absent}"),
        # "there's no CRRT dosing in the formulary", "im Formular gibt es keine Dosierung"
        ((there_is_no, noun), rf"{there_is_no}{absent}\s*{_GAP}{place}{absent}"),
        ((there_is_no, noun), rf"{place},?\s+{_FEW}{there_is_no}{absent}"),
        # "El informe no lo dice", "Der Bericht sagt es nicht", "no lo dice el informe": a paper
        # that does not say it (not a person: "Juan no lo dice")
        ((noun, alt("not_said")), rf"{noun}\s+{_GAP}{alt('not_said')}{_CLAUSE_ENDS_HERE}"),
        # "Los informes no mencionan el plazo", "Die Unterlagen erwähnen die Dauer nicht": what it does
        # not say after it, unless a finding or a figure ("no mencionan fugas", "nennt ... nicht 0,60")
        ((noun, not_named), rf"{noun}\s+{_GAP}{not_named}{_NOT_DIRECTLY}{absent}"),
        ((noun, alt("not_said")), rf"{alt('not_said')}\s+{_FEW}{noun}{absent}"),
        # "Rien dans les documents sur le coût", "Nothing in the papers on the cost": no verb
        # (a sentence of its own: "nothing in the report on liquidity that worries me" says something)
        (
            (alt("nothing_words"), noun),
            rf"{alt('nothing_words')}\s*{place}\s+{alt('about_words')}"
            # (what it is about may be a clause of its own: "sur ce que DPD paiera", "sobre lo que")
            rf"(?:\s+(?:ce\s+qu[ei]|lo\s+que|o\s+que|what|was|wat|quello\s+che))?"
            rf"(?:\s+(?!{_RELATIVES})[^\s.;:!?,]+){{1,4}}\s*(?:[.;:!?\n]|$)",
        ),
        # "Onbekend uit de stukken", "Inconnu d'après les documents"
        ((alt("unknown_words"), noun), rf"{alt('unknown_words')}\s*{place}"),
        # "Data di revoca: non indicata", "Lift date: not given": a field of its own, not stated
        (
            (alt("unknown_words"),),
            rf"(?:^|(?<=[\n.;!?]))[\s*_#>-]*(?:[^\W\d_][^\s.;:!?,]*\s+){{0,4}}[^\W\d_][^\s.;:!?,]*[*_]*\s*:"
            rf"\s*[*_]*{alt('unknown_words')}(?:\s+{_EITHER})?[*_]*\s*(?:[.;,!?\n]|$)",
        ),
        # "No date known for the reinforcement", "Geen datum voor de verzwaring bekend": no verb
        (
            (none_of, alt("known_words")),
            rf"{opens}{none_of}{absent}(?!\s*{_OTHER})\s*(?:[^\s\d.;:!?,]+\s+){{1,5}}?{alt('known_words')}"
            rf"(?:\s+[^\s\d.;:!?,]+){{0,5}}?\s*(?:[.;,!?\n]|$)",
        ),
        # "... but says nothing about its weight", "ne dit rien sur le poids": the thing in a few words
        (
            (said_nothing,),
            rf"{said_nothing}{absent}(?:\s+[^\s.;:!?,]+){{1,5}}?\s*(?:[.;,!?\n]|$)",
        ),
        # "Een bedrag ontbreekt in het logboek", "The fee is missing from the file": the thing first
        (
            (alt("missing_verbs"),),
            rf"{opens}(?!{alt('nothing_words')}|{alt('negators')})(?!(?:[^\s.;:!?,]+\s+){{0,3}}"
            rf"{_bare(t['findings'], keep)})(?:(?:[^\s\d.;:!?,]+|{_CODE})\s+){{1,5}}?{alt('missing_verbs')}"
            rf"(?:\s+(?:from|in|aus|im|in\s+der|in\s+den|dans|du|de|en|no|na|nel|nella|uit)\s*{_FEW}{noun}"
            rf"(?:\s+[^\s\d.;:!?,]+){{0,2}})?\s*(?:[.;,!?\n]|$)",
        ),
        # "Im Bericht fehlt die Dosis", "Manca la data", "Falta la fecha": the verb first
        (
            (alt("missing_verbs"),),
            rf"{opens}(?:{place},?\s+)?(?:il\s+|es\s+|er\s+)?{alt('missing_verbs')}\s+"
            rf"(?!{alt('nothing_words')}|{_LITTLE}|{_ONLY}|{_bare(t['findings'], keep)})"
            # (its sentence ends there: "Manca solo la firma, poi APPROVED" names what is left to do)
            rf"(?:(?:[^\s\d.;:!?,]+|{_CODE})\s*){{1,5}}?(?:{place}\s*)?(?:[.;!?\n]|$)",
        ),
        # "Orario di prelievo non indicato", "Heure de prélèvement non précisée": a field of a few
        # words, its value not stated, with no colon (a sentence of its own)
        (
            (alt("unknown_words"),),
            rf"(?:^|(?<=[\n.;!?]))[\s*_#>-]*(?:(?!{_COPULA})[^\W\d_][^\s.;:!?,]*\s+){{1,4}}"
            rf"{alt('unknown_words')}\s*(?:[.;!?\n]|$)",
        ),
        # "não está no PIR nem em nenhum dos outros documentos": not in one, nor in any paper
        (
            (alt("absent_from"), in_none_of, noun),
            rf"{alt('absent_from')}\s+{alt('source_in')}\s*(?:[^\s.;:!?,]+\s+){{0,2}}?,?\s*{alt('nor')}"
            rf"\s+{in_none_of}\s*(?:[^\s.;:!?]+\s+){{0,2}}?{noun}",
        ),
        # "There's no logged speed anywhere", "No hay velocidad registrada en ninguna parte": no such
        # thing nowhere, no paper named, a clause of its own (not "no leak anywhere", a finding)
        (
            (nowhere_any,),
            rf"{opens}(?:{there_is_no}|{none_of}){absent}\s*(?:[^\s\d.;:!?,]+\s+){{1,4}}?{nowhere_any}{ends}",
        ),
        # "La data non c'è da nessuna parte", "The date isn't anywhere": the thing first, nowhere (not
        # "The pressure is nowhere near 0.60", which goes on)
        (
            (nowhere_any,),
            rf"{opens}{thing}(?:(?:{alt('absent_from')}|{there_is_no})\s+{nowhere_any}|{absent_nowhere}){ends}",
        ),
        # "El expediente no fija ninguna fecha de levante", "Die Akte legt kein Datum fest", "The file
        # sets no date": a paper whose verb of saying has none of the thing
        ((none_of, noun), rf"{noun}\s+{_GAP}{heads}\s+{none_of}{absent}"),
        # "El informe no fija la duración", "Il verbale non fissa la pressione": a paper whose verb of
        # saying (by its first word) is negated before it, the thing after it in a few words
        (
            (noun, heads),
            rf"{noun}\s+{_GAP}{alt('negators')}\s+{heads}{_NOT_DIRECTLY}{absent}"
            rf"(?:\s+[^\s\d.;:!?,]+){{1,5}}?\s*(?:[.;,!?\n\u2013\u2014]|\s-\s|$)",
        ),
        # "Een topsnelheid heb ik niet", "La velocidad máxima no la tengo": the thing first, the
        # speaker without it (not "Bedenken habe ich nicht", a finding)
        (
            (alt("not_have_fronted"),),
            rf"{opens}(?:{thing})?(?!{stops})[^\s\d.;:!?,]+,?\s+{alt('not_have_fronted')}(?:\s+{_EITHER})?\s*(?:[.;:,!?\n\u2013\u2014]|\s-\s|$)",
        ),
        # "The wind speed isn't recorded", "De grootte is nog niet vastgesteld": the thing never taken
        # (no figure nor finding in the subject, and its clause ends right after)
        (
            (alt("not_recorded"),),
            rf"{opens}(?!(?:[^\s.;:!?,]+\s+){{0,3}}{_bare(t['findings'], keep)})"
            rf"(?:[^\s\d.;:!?,]+\s+){{1,7}}?{alt('not_recorded')}"
            rf"(?:\s+[^\s\d.;:!?,]+){{0,2}}?\s*(?:[.;,:!?\n\u2013\u2014]|\s-\s|$)",
        ),
        # "Nothing was measured that day", "An dem Tag wurde nichts gemessen": nothing taken, a clause
        # of its own with no figure (not "Nothing was measured above 0.8 mg/L")
        (
            (alt("nothing_taken"),),
            rf"{opens}(?:[^\s\d.;:!?,]+\s+){{0,4}}?{alt('nothing_taken')}"
            rf"(?:\s+[^\s\d.;:!?,]+){{0,4}}?\s*(?:[.;,!?\n\u2013\u2014]|\s-\s|$)",
        ),
        # "No result for LDH", "Nessun punteggio per la bozza di marzo": none of a value, no verb, only
        # what it is for after it (not "no abnormal values", a finding; nor "Ningún valor supera el
        # límite", which goes on)
        (
            (value,),
            rf"{opens}{_FRONTED}{none_of}{absent}\s*{before_value}{value}{not_found}"
            rf"(?:\s+{alt('value_for')}(?:\s+{rest}){{1,6}}?)?{no_relative}{ends}",
        ),
        # "Für den 21. Juli liegt kein Ammonium-Wert vor", "There's no March score to give you": no such
        # value, a clause of its own (not "there is no value that exceeds the limit")
        (
            (value,),
            rf"{opens}{_FRONTED}{there_is_no}{absent}\s*{before_value}{value}{not_found}"
            rf"(?:\s+(?!{_RELATIVES}){rest}){{0,6}}?{no_relative}{ends}",
        ),
        # "neither HX-200 nor the adjuster's report mentions it": a paper or a code among them
        (
            (neither,),
            rf"{neither}(?=[^.;:!?\n]{{0,80}}?(?:{noun}|{code}))\s+{_GAP}{alt('nor')}\s+{_GAP}{saying}{absent}",
        ),
    ]
    return tuple((tuple(re.compile(n) for n in needs), re.compile(g)) for needs, g in grammars)


#: After a paper a thing is not in: "either", "non plus", "tampoco" ("The date isn't in the notes either")
_EITHER = (
    r"(?:either|at\s+all|non\s+plus|tampoco|tampouco|nemmeno|neanche|neppure|auch\s+nicht|ebenfalls\s+nicht|"
    r"ook\s+niet|evenmin)"
)


#: "A little": what is missing is not a thing then ("Falta poco", "Manca poco", "il manque peu")
_LITTLE = r"(?:poco|pouco|peu|little|wenig|weinig|nog\s+maar|un\s+po|un\s+peu)\b"

#: "Only": what only is missing is what is left to do ("Manca solo la firma")
_ONLY = (
    r"(?:only|just|nur|noch|seulement|juste|solo|s[o\u00f3]lo|s[o\u00f3]|apenas|soltanto|alleen|enkel|nog)\b"
)

#: The last word of a phrase of saying nothing "about" the thing
_ABOUT_LAST = frozenset(
    {
        "about",
        "über",
        "zu",
        "zum",
        "zur",
        "sur",
        "de",
        "du",
        "sobre",
        "acerca",
        "del",
        "do",
        "da",
        "su",
        "sul",
    }
    | {"sulla", "over", "à", "on"}
)
#: A verb of being: a field has none ("The count is unknown" is a sentence, not a field)
_COPULA = (
    r"(?:is|are|was|were|ist|sind|war|est|sont|\u00e9tait|es|son|est\u00e1|est\u00e1n|era|\u00e9|s\u00e3o|"
    r"est\u00e3o|\u00e8|sono|zijn)\b"
)

#: "Other", "further": no other such thing known is a finding ("No other case known to us")
_OTHER = (
    r"(?:other|further|autres?|andere[nrs]?|weitere[nrs]?|otr[oa]s?|outr[oa]s?|altr[oaie]|ander|andere)\b"
)

#: A code that names a thing ("SP-2", "XR-207"): letters, then digits
_CODE = r"(?<![\w-])[^\W\d_]+-?\d[\w/-]*"

#: A short phrase that opens a clause with what it is about ("Für SP-2", "Voor de nieuwe trek,",
#: "Pour le SP-2,", "Quanto ao SP-2,"): a preposition and up to four words, or none
_FRONTED = (
    r"(?:(?:for|about|regarding|as\s+for|pour|quant\s+(?:au|[\u00e0a]\s+la|aux)|f(?:u|\u00fc|ue)r|zu[mr]?|bei|"
    r"para|sobre|en\s+cuanto\s+a(?:l)?|quanto\s+a[os]?|per|su|quanto\s+a(?:l|lla)?|voor|wat\s+betreft)"
    r"\s+(?:[^\s.;:!?,]+\s+){0,3}?[^\s.;:!?,]+,?\s+)?"
)


#: "The least": what the speaker has not the least of is a doubt, not a thing ("je n'ai pas la moindre
#: hésitation")
_LEAST = (
    r"(?:least|slightest|moindre|mindeste[nr]?|geringste[nr]?|menor|m[i\u00ed]nim[oa]|m[e\u00e9]nima|minste|"
    r"geringste)\b"
)


#: After a paper's not saying: "not directly", "that ..." make it an answer ("Der Bericht sagt es
#: nicht direkt, aber ...", "Os documentos não dizem que o reinício falha")
#: Saying it "directly", "explicitly": a paper may not say it so and still say it
_DIRECTLY = (
    r"(?:directly|explicitly|expressly|in\s+so\s+many\s+words|direkt|explizit|"
    r"ausdr(?:\u00fc|ue|u)cklich|w(?:\u00f6|oe|o)rtlich|directement|explicitement|"
    r"express(?:\u00e9|e)ment|directamente|"
    r"expl[i\u00ed]citamente|expresamente|diretamente|direttamente|esplicitamente|espressamente|direct|"
    r"expliciet|letterlijk|rechtstreeks|uitdrukkelijk|met\s+zoveel\s+woorden|in\s+tantas\s+palabras|"
    r"con\s+queste\s+parole)\b"
)
#: (a pronoun may stand before the word: "doesn't say it directly", "sagt es nicht direkt")
_PRONOUN_BEFORE = r"(?:(?:it|this|that|so|es|das|le|la|lo|het|dat|o|a|ce|cela)\s+)?"
#: Not "directly", nor "that" and its kin (what a paper does not say may follow: "doesn't say that ...")
_NOT_DIRECTLY = rf"(?!\s*,?\s*{_PRONOUN_BEFORE}(?:{_DIRECTLY}|(?:that|dass|da\u00df|que|qu'|che|dat)\b))"
#: Not "directly" (a phrase of declining said "not directly, but": an answer follows)
_NOT_SAID_DIRECTLY = rf"(?!\s*,?\s*{_PRONOUN_BEFORE}{_DIRECTLY})"
#: ... nor after what it does not say, in its clause ("doesn't cost the repairs directly, but")
SAID_NOT_DIRECTLY = re.compile(rf"[^.;:!?\n]{{0,60}}?(?<![\w']){_DIRECTLY}\s*,?\s*")


@dataclass(frozen=True, slots=True)
class Lexicon:
    """One language's rules, compiled (see the module documentation)."""

    language: str
    negated_end: re.Pattern[str]
    double_end: re.Pattern[str]
    conditional: re.Pattern[str]
    to_label: re.Pattern[str]
    condition_opens: re.Pattern[str]
    verb_first: re.Pattern[str]
    copula_end: re.Pattern[str]
    framing: re.Pattern[str]
    threshold: re.Pattern[str]
    conditional_after: re.Pattern[str]
    conditional_mood: re.Pattern[str]
    #: right after a label, the participle of a past counterfactual ("was het X geweest")
    counterfactual_after: re.Pattern[str]
    #: a band's step coming into force ("kicks in", "entra en vigor", "scatta")
    takes_effect: re.Pattern[str]
    #: opening a sentence, a preposition that sets a condition ("Bij een melding binnen 7 dagen")
    condition_preposition: re.Pattern[str]
    #: right before a label, the verb of a past counterfactual ("it would have been X")
    counterfactual_end: re.Pattern[str]
    #: right before a label, a verb of change in the present ("passa a", "moves to", "geht auf")
    moves_to_end: re.Pattern[str]
    #: right before a label, "not just" ("nicht bloß HIGH", "pas seulement HIGH"): set aside
    not_only_end: re.Pattern[str]
    #: right after a label, what the band is for, its scope ("ist für Sachen gedacht, die ..."): a rule
    purpose_after: re.Pattern[str]
    applies_end: re.Pattern[str]
    consequence_opens: re.Pattern[str]
    copula: re.Pattern[str]
    applies_if: re.Pattern[str]
    #: right after a label, a relative clause, then the band's rule (``purpose_after``, or a
    #: ``conditional_after`` other than a bare condition word): "La X que pide el fabricante solo cabe si"
    relative_rule: re.Pattern[str]
    #: a scope a source's band is restricted to ("below 2,000 m", "por la tarde"), and the papers
    scope: re.Pattern[str]
    source_noun: re.Pattern[str]
    change_end: re.Pattern[str]
    passive_end: re.Pattern[str]
    denied_after: re.Pattern[str]
    #: the case said to meet a band's rule reported before it ("et c'est exactement le cas de T7")
    rule_met: re.Pattern[str]
    #: a source other than the answer giving the band right before it ("le bot indiquait RED")
    reported_end: re.Pattern[str]
    #: ... or right after it ("PHYSICAL_INSPECTION proposé par le transporteur")
    reported_after: re.Pattern[str]
    #: an earlier band taken back after it, before the band that corrects it ("RED; that was an
    #: overreaction. AMBER.")
    retracted_after: re.Pattern[str]
    past_end: re.Pattern[str]
    #: a past time after a word of "since" ("seit gestern"): when the band now began, not a past one
    since_past_end: re.Pattern[str]
    past_after: re.Pattern[str]
    rather_end: re.Pattern[str]
    #: a change's ``from`` ending the clause before a label, and its ``to`` and the next label after it
    change_from_end: re.Pattern[str]
    change_to_after: re.Pattern[str]
    #: ``from LABEL to`` ending the clause before a label: the label is where a change (or range) goes
    change_dest_end: re.Pattern[str]
    change_word: re.Pattern[str]
    #: a word of change right before the change's ``from`` ending the clause before a label
    #: (``MEDIUM, herabgestuft von HIGH``): the band it came from
    changed_from_end: re.Pattern[str]
    change_future: re.Pattern[str]
    #: a word of ``change_now`` ending the clause before a label ("ora BLOCK", "agora é REVIEW"), and
    #: a change's ``to`` ending it ("auf BLOCK hochgestuft"): where the band went
    now_end: re.Pattern[str]
    change_to_end: re.Pattern[str]
    #: right after a label, the participle that completes a verb of becoming ("ist es X geworden",
    #: "is het X geworden"): where the band went, as a word of ``change_now`` before it says
    became_after: re.Pattern[str]
    #: right before a label, a change to it denied ("niente declassamento a X"): not where the band went
    negated_change_end: re.Pattern[str]
    #: a qualifying field's name right before a label ("Confidence: HIGH") or right after it
    #: ("HIGH confidence")
    qualifier_end: re.Pattern[str]
    qualifier_after: re.Pattern[str]
    clause_break: re.Pattern[str]
    #: a word of negation, and a word of contrast (``negators``, ``contrast``)
    negator: re.Pattern[str]
    contrast: re.Pattern[str]
    #: a word of purpose ending the clause before a label, and a verb of needing after it
    purpose_end: re.Pattern[str]
    requirement_after: re.Pattern[str]
    #: a verb of requiring right before a label, its subject (German and Dutch verb-second order)
    requirement_end: re.Pattern[str]
    #: after a label, a requirement that refers back to it by a pronoun ("dafür bräuchte es")
    requirement_back: re.Pattern[str]
    #: a word of concession ("too", "auch"), and after a label a contrast that rejects it ("but
    #: that wouldn't explain")
    conceded: re.Pattern[str]
    rejected_after: re.Pattern[str]
    #: the words the phrases of declining are built of that say where an answer would be or that
    #: it is missing (``source_nouns``, ``appear_verbs``, ``mention_verbs``, ``there_is_no``,
    #: ``nowhere``, ``unknown_words``): with a negator, a sentence that may decline in words no
    #: phrase holds
    absence: re.Pattern[str]
    unknown: re.Pattern[str]
    #: after a paper's silence and a word of "so", what leaves the question open ("so you'd have to
    #: ask the terminal"): no conclusion of the answer's own
    open_after: re.Pattern[str]
    #: an interjection of not knowing ("Boh", "Dunno"): filler before a verdict, said alone a decline
    doubt_filler: re.Pattern[str]
    #: a hedge of the speaker's confidence ("I'm not sure"): before a contrast and an answer, no decline
    unsure_hedge: re.Pattern[str]
    #: the things a source may be found without (``findings``): "no leak in the report" is a finding
    finding: re.Pattern[str]
    refusal: re.Pattern[str]
    #: a time of day after a preposition ("für 10 Uhr"): a qualifier, no figure (:func:`hours_masked`)
    hour: re.Pattern[str]
    #: a day of the month after one ("del 21", "vom 21."): a qualifier too (:func:`hours_masked`)
    day: re.Pattern[str]
    #: phrases of declining built from parts, each with the parts it needs in the text
    refusal_parts: tuple[tuple[tuple[re.Pattern[str], ...], re.Pattern[str]], ...]
    #: the words of its phrases of declining (``keine``, ``ahnung``, ``nicht``...): a word in
    #: capitals among them is the refusal shouted, not a verdict guessed inside it
    refusal_words: frozenset[str]
    guess_marker_end: re.Pattern[str]
    numbers: Mapping[str, float]
    number_word: re.Pattern[str]
    #: a half after a number, a word for one or a unit (``y medio``, ``et demi``, ``and a half``)
    half_after: re.Pattern[str]
    #: the words for one that are also articles (``one_words``)
    ones: frozenset[str]
    #: ``numbers`` that are also nouns (``number_nouns``)
    number_nouns: frozenset[str]
    consensus: re.Pattern[str]
    claim_negator: re.Pattern[str]
    #: a claim's group words -> the group's English name, and the words after a claim that name one
    groups: Mapping[str, str]
    #: the heads of a compound role (``leiter``, ``chef``) and the fields before them
    #: (``instandhaltung``, ``onderhoud``) -> their English names
    role_heads: Mapping[str, str]
    role_fields: Mapping[str, str]
    group_after: re.Pattern[str]
    #: a claim's group before it in its clause, after a preposition or a word of "all" ("entre los
    #: médicos de familia hay consenso", "tous les généralistes vous diront la même chose")
    group_before: re.Pattern[str]
    #: agreement by a subject the answer names before it (``les analystes fraude sont unanimes``)
    #: or after it (``ne sono convinti tutti i direttori``), and the words a subject is read with
    agreement: re.Pattern[str]
    agreement_open: re.Pattern[str]
    #: agreement in the singular, by a subject that names a body (``el claustro está de acuerdo``)
    body_agreement: re.Pattern[str]
    bodies: tuple[str, ...]
    #: who agrees, as a range after a claim and its comma (``, dal TSO al regolatore``)
    group_range: re.Pattern[str]
    group_range_words: frozenset[str]
    #: the first words of those phrases, and of ``consensus``: where one may start (tried only there)
    agreement_starts: re.Pattern[str]
    consensus_starts: re.Pattern[str]
    agreement_words: frozenset[str]
    #: the words of the ``consensus`` phrases: any other word inside a claim (``cualquier
    #: profesor te diría``) names who agrees
    consensus_words: frozenset[str]
    subject_fillers: frozenset[str]
    subject_stops: frozenset[str]
    first_person: frozenset[str]
    not_people: frozenset[str]
    #: the months (``months``): a date before a claim (``Laut Protokoll vom 10. Februar besteht
    #: Einigkeit``) names no one who agrees
    month_words: frozenset[str]
    #: a reply that agrees, first on its line or in its quote and ended there (``Agreed.``)
    reply: re.Pattern[str]
    #: an inclusion right after a claim, and one set off inside it (group ``np``: its groups)
    inclusion_after: re.Pattern[str]
    inclusion_inside: re.Pattern[str]
    group_and: frozenset[str]
    inclusion_words: frozenset[str]
    #: words that open no group after a word of inclusion ("y compris sur la date", "auch wenn")
    inclusion_stops: frozenset[str]
    #: a claim over a whole class or trade (``any``, ``tous les``, ``setor``), and a group's
    #: unanimity (``unanime``): the context must state agreement as broad
    breadth: re.Pattern[str]
    unanimity: re.Pattern[str]
    #: the words of "both" (``tous les deux``, ``alle beide``): a pair, no class
    pair: re.Pattern[str]
    #: the words of "all" or "each": breadth unless they follow a list ("A, B and C all back it")
    every: re.Pattern[str]


#: Where a retraction ends: its clause does too ("that was a mistake: ...", not "... by the operator")
_CLAUSE_ENDS_HERE = r"(?=[\s\"'`*_)]*(?:[.,;:!?\u2013\u2014(\n]|-\s|$))"
#: Relative pronouns: a clause that goes on after what it is about says something of it
_RELATIVES = r"(?:that|which|who|qui|que|quoi|dass|das|was|welche[sr]?|dat|wat|die|che|cui|quale)\b"
#: Languages that write compound nouns as one word: a source noun may end one (``Prüfbericht``)
_COMPOUNDING = frozenset({"de", "nl"})
#: A label as the change rules see it, in the text as written: a word in capitals (``LOW``, ``HIGH``)
_LABEL_WORD = r"(?-i:[A-Z][A-Z0-9_-]*[A-Z0-9])"
_LABEL_END = r"[\"'`*_)\]]*"
_LABEL_NEXT = rf"[\s\"'`*_(\[]*{_LABEL_WORD}(?![\w-])"
#: an arrow between two labels: a change (``HIGH → MEDIUM``), from the one before it to the one after
_ARROW = r"(?:\u2192|\u27f6|\u21d2|-+>|=+>)"
_LABEL_IN = re.compile(rf"(?<![\w-]){_LABEL_WORD}(?![\w-])")
_ARROW_AFTER = re.compile(rf"{_LABEL_END}\s*{_ARROW}{_LABEL_NEXT}")
_ARROW_BEFORE = re.compile(rf"(?<![\w-]){_LABEL_WORD}{_LABEL_END}\s*{_ARROW}[\s\"'`*_(\[]*$")


#: the parts of the phrases of declining built from parts: their words are words of declining
_PART_KEYS = (
    "connectives",
    "not_recorded",
    "none_of",
    "in_none_of",
    "nowhere",
    "appear_verbs",
    "there_is_no",
    "neither",
    "nor",
    "mention_verbs",
)


def _strings(doc: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{where}: {key} must be a list of non-empty strings")
    return list(value)


#: Where a reply opens: a line, a quote, or a colon (``wrote: Agreed.``), bullets and quote marks
#: before it; and where it ends: a point, a comma, an exclamation mark, a dash, the line's end or a
#: closing quote, never a question mark nor another word (``Agreed price: 255 \u20ac``). The rules
#: text writes every quote mark straight (an opening ``'`` is read as ``"``: :func:`find_replies`).
_REPLY_OPENS = r"(?:^|(?<=[:\"]))[ \t\"*_\u2022-]*"
#: (a colon and what is agreed after it, "Agreed: this looks like a one-off"; not "Agreed: no")
_REPLY_ENDS = (
    r"[ \t]*(?=[.!,;\u2014\u2013\")]|:[ \t]+(?!(?:no|not|non|nein|nee|nicht|pas|n[aã]o)\b)[^\W\d_]|"
    r"-\s|[ \t]*$)"
)
#: A single quote mark that is no apostrophe (no letter before it): a quote opens or closes there
_SINGLE_QUOTE = re.compile(r"(?<![^\W\d_])'")


def find_replies(lexes: Iterable[Lexicon], low: str) -> list[tuple[int, int, str]]:
    """Replies that agree in ``low`` (lower-case rules text, ``agreement_replies``): ``(start, end,
    language)``, one per place (the longest), from the reply's first word."""
    read = _SINGLE_QUOTE.sub('"', low)
    out: dict[int, tuple[int, int, str]] = {}
    for lex in lexes:
        for m in lex.reply.finditer(read):
            s = m.end() - len(m.group().lstrip(' \t"*_\u2022-'))
            if s not in out or out[s][1] < m.end():
                out[s] = (s, m.end(), lex.language)
    return sorted(out.values())


#: What sets an inclusion off after a claim (a comma, a bracket, a dash), and where its groups end
_INCLUSION_MARK = r"(?:[,(]|\u2014|\u2013|\s-)"
_INCLUSION_EDGE = r"(?=[ \t]*(?:[.,;:!?)\u2014\u2013\n]|-\s|$))"


def _np_list(conjunctions: str) -> str:
    """Up to three groups of up to six words each (letters, an elided article: ``l'inquilino``;
    a complement: ``el propietario de la granja``), joined by a comma or a word of ``conjunctions``."""
    np = r"(?:[^\W\d_][\w'-]*\s+){0,5}?[^\W\d_][\w'-]*"
    return rf"{np}(?:\s*,?\s+{conjunctions}\s+{np}){{0,2}}"


#: Words of "all" or "any" before a group ("tous les généralistes", "cualquier neumólogo")
_EVERY = (
    r"(?:tous|toutes|chaque|todos|todas|cualquier|qualquer|alle|jeder|jede|tutti|tutte|ogni|qualsiasi|"
    r"iedere|ieder|elke|all|every|any)(?![\w'])"
)


def _compile(doc: Mapping[str, Any], where: str, keep: frozenset[str] = frozenset()) -> Lexicon:
    t = {key: _strings(doc, key, where) for key in _KEYS}
    t["refusal"] += t["source_silent"]  # a silent source is a refusal like any other
    # "nothing in <the source> <says / covers ...>", every opener with every verb
    # (the papers may take up to ten words to name: "nothing in the lab sheets or the regulator's letter")
    t["refusal"] += [f"{o} ... ... {v}" for o in t["silent_openers"] for v in t["silent_verbs"]]
    # a view, or a practice, said to be everyone's is a claim of agreement
    t["consensus"] += t["common_view"] + t["common_practice"]
    t["fillers"] += t["rating_verbs"]
    t["negation_before"] += t["disowned_before"]
    t["denied_after"] += t["disputed_after"]

    # "je ne peux donc pas": the connectives that may stand inside a phrase of declining
    between = r"(?:" + _alternation(t["connectives"], keep) + r",?\s+){0,2}" if t["connectives"] else ""

    def alt(phrases: Iterable[str]) -> str:
        return _alternation(phrases, keep, between)

    numbers = doc.get("numbers", {})
    if not isinstance(numbers, dict) or not all(
        isinstance(k, str) and isinstance(v, int | float) and not isinstance(v, bool)
        for k, v in numbers.items()
    ):
        raise ValueError(f"{where}: numbers must map words to numbers")
    _figure_tables(doc, where)
    groups = _word_map(doc, "groups", where)
    fillers = (
        "(?:" + "|".join(sorted((_word_pattern(f, keep) for f in t["fillers"]), key=len, reverse=True)) + ")"
    )
    filler_run = rf"(?:(?:\s+|(?<='))(?:{fillers}))*"
    open_tail = rf"{filler_run}[\s\"'`*_(\[]*"
    tail = open_tail + "$"
    folded = {canonical_text(k).lower(): float(v) for k, v in numbers.items()}
    # an inclusion: its opening or closing words, and its groups joined by a word of "and"
    including, included, joins = alt(t["group_including"]), alt(t["group_included"]), alt(t["group_and"])
    nps = _np_list(joins)
    return Lexicon(
        language=str(doc["language"]),
        negated_end=re.compile(alt(t["negation_before"] + t["nothing_points_to"]) + tail),
        double_end=re.compile(alt(t["double_negation"]) + tail),
        # never a clitic after a hyphen (Portuguese "situa-se", "enquadra-se": the pronoun, not "if")
        conditional=re.compile("(?<!-)" + alt(t["conditional"])),
        to_label=re.compile(tail),
        condition_opens=re.compile(r"^[\s\"'`*_]*" + alt(t["conditional"] + t["condition_first"])),
        verb_first=re.compile(r"^[\s\"'`*_]*" + alt(t["verb_first"])),
        copula_end=re.compile(alt(t["copulas"]) + tail),
        framing=re.compile(alt(t["framing"])),
        threshold=re.compile(r"\d|" + alt(t["threshold"])),
        # right after the label, or after one noun it qualifies ("HIGH uniquement si", "HIGH-Stufe nur wenn")
        # matched where a label ends, in any case (the text is not lowered: no window to lower)
        # or after a verb in the conditional mood ("Un TREAT se justifierait seulement au-delà de 3",
        # "HIGH wäre nur dann richtig, wenn"): what the band would need
        conditional_after=re.compile(
            r"\s*(?:"
            + alt(t["alone_after"])
            + r"\s+)?(?:[\w-]+\s+)?"
            + alt(t["conditional_after"])
            + r"|\s*(?:[\w'-]+\s+)?(?:[^\W\d_]{1,3}')?(?:"
            + alt(t["conditional_mood"])
            + rf"|{_CONDITIONAL_VERB})\s+(?:[\w'-]+\s+){{0,3}}?"
            + alt(t["conditional_after"]),
            re.IGNORECASE,
        ),
        conditional_mood=re.compile(alt(t["conditional_mood"])),
        counterfactual_after=re.compile(r"[\"'`*_)]*\s+(?:[\w'-]+\s+)?" + alt(t["counterfactual_after"])),
        takes_effect=re.compile(alt(t["takes_effect"])),
        condition_preposition=re.compile(r"^[\s\"'`*_(]*" + alt(t["condition_prepositions"])),
        counterfactual_end=re.compile(alt(t["counterfactual_before"]) + tail),
        moves_to_end=re.compile(alt(t["moves_to_before"]) + tail),
        not_only_end=re.compile(alt(t["not_only_before"]) + tail),
        scope=re.compile(alt(t["scope_before"])),
        source_noun=re.compile(alt(t["source_nouns"])),
        purpose_after=re.compile(r"[\s\"'`)*_]*" + alt(t["purpose_after"]), re.IGNORECASE),
        applies_end=re.compile(alt(t["applies_before"]) + tail),
        rule_met=re.compile(alt(t["rule_met"])),
        consequence_opens=re.compile(r"^[\s\"'`*_]*" + alt(t["consequence"])),
        copula=re.compile(alt(t["copulas"])),
        applies_if=re.compile(r"[\s\"'`*_]*,?\s*" + alt(t["applies_if"]), re.IGNORECASE),
        relative_rule=re.compile(
            r"[\s\"'`)*_]*,?\s*"
            + alt(t["relative_openers"])
            + r"(?:\s+[^\s.;:!?()]+){1,8}?[\s,]+(?:(?:[\w-]+\s+)?"
            + alt([p for p in t["conditional_after"] if p not in t["conditional"]])
            + "|"
            + alt(t["purpose_after"])
            + ")",
            re.IGNORECASE,
        ),
        change_end=re.compile(alt(t["change_before"]) + tail),
        requirement_end=re.compile(alt(t["requirement_before"]) + tail),
        passive_end=re.compile(alt(t["present_passive"]) + tail),
        # a note in brackets, or a word of "alone", may stand between ("STANDARD_RATE (4,5 %) reicht
        # nicht", "un SAFE a secas me parece demasiado optimista")
        # and so may a phrase of a preposition ("Un DETAIN per una carta su 12 sarebbe troppo")
        denied_after=re.compile(
            r"[\s\"'`)*_]*(?:\([^()\n]{0,40}\)[\s,]*)?(?:"
            + alt(t["phrase_prepositions"])
            + r"(?:\s+[^\s.,;:!?()]+){1,6}?\s+)?(?:"
            + alt(t["alone_after"])
            + r",?\s+)?"
            + alt(t["denied_after"]),
            re.IGNORECASE,
        ),
        # a retraction is a clause of its own: it ends where the phrase does
        retracted_after=re.compile(alt(t["retracted_after"]) + _CLAUSE_ENDS_HERE),
        reported_end=re.compile(alt(t["reported_before"]) + tail),
        reported_after=re.compile(r"[\s\"'`)*_]*" + alt(t["reported_after"]), re.IGNORECASE),
        past_end=re.compile(alt(t["past_before"]) + tail),
        since_past_end=re.compile(alt(t["since"]) + r"\s+" + alt(t["past_before"]) + tail),
        past_after=re.compile(r"[\s\"'`*_]*" + alt(t["past_after"]), re.IGNORECASE),
        rather_end=re.compile(alt(t["rather_or_before"]) + tail),
        change_from_end=re.compile(alt(t["change_from"]) + tail),
        change_to_after=re.compile(
            rf"{_LABEL_END}(?:\s+[\w-]+){{0,2}}?\s+{alt(t['change_to'])}{filler_run}{_LABEL_NEXT}",
            re.IGNORECASE,
        ),
        change_dest_end=re.compile(
            rf"{alt(t['change_from'])}{filler_run}[\s\"'`*_(\[]*{_LABEL_WORD}{_LABEL_END}"
            rf"(?:\s+[\w-]+){{0,2}}?\s+{alt(t['change_to'])}{tail}",
            re.IGNORECASE,
        ),
        change_word=re.compile(alt(t["change_words"] + t["change_now"])),
        changed_from_end=re.compile(alt(t["change_words"]) + r"\s+" + alt(t["change_from"]) + tail),
        change_future=re.compile(alt(t["change_future"])),
        now_end=re.compile(alt(t["change_now"]) + tail),
        became_after=re.compile(r"[\"'`*_)]*\s+" + alt(t["became_after"]), re.IGNORECASE),
        change_to_end=re.compile(alt(t["change_to"]) + tail),
        # a change denied: a negator, a word or two of change, its "to" ("niente declassamento a X",
        # "no downgrade to X", "keine Herabstufung auf X")
        negated_change_end=re.compile(
            alt(t["negators"]) + r"(?:\s+[\w'-]+){1,2}?\s+" + alt(t["change_to"]) + tail
        ),
        # a field: its name, a colon or an equals sign ("Confidence: HIGH"; "met zekerheid HIGH" is "surely")
        qualifier_end=re.compile(alt(t["qualifier_fields"]) + r"[\s*_]*[:=][\s\"'`*_(\[]*$"),
        # on the label's own line: "MEDIUM\nConfidence: HIGH" is two fields
        qualifier_after=re.compile(r"[ \t\"'`*_)\]]*" + alt(t["qualifier_fields"]), re.IGNORECASE),
        clause_break=re.compile(r"[.,;:!?()\[\]\n]|" + alt(t["clause_breaks"])),
        negator=re.compile(alt(t["negators"])),
        purpose_end=re.compile(alt(t["purpose_before"]) + tail),
        requirement_after=re.compile(
            r"[\"'`*_)]*[\s,]*(?:[\w'-]+,?\s+){0,2}?" + alt(t["requirement_after"]), re.IGNORECASE
        ),
        requirement_back=re.compile(
            r"[\"'`*_)]*[\s,]*(?:[\w'-]+,?\s+){0,4}?" + alt(t["requirement_back"]), re.IGNORECASE
        ),
        conceded=re.compile(alt(t["conceded"])),
        rejected_after=re.compile(
            r"[\"'`*_)]*[\s,]*(?:[\w'-]+,?\s+){0,3}?" + alt(t["rejected_after"]), re.IGNORECASE
        ),
        contrast=re.compile(alt(t["contrast"])),
        absence=re.compile(
            alt(
                t["source_nouns"]
                + t["appear_verbs"]
                + t["mention_verbs"]
                + t["there_is_no"]
                + t["nowhere"]
                + t["unknown_words"]
            )
        ),
        unknown=re.compile(alt(t["unknown_words"])),
        open_after=re.compile(alt(t["open_after"])),
        doubt_filler=re.compile(alt(t["doubt_fillers"])),
        unsure_hedge=re.compile(alt(t["unsure_hedges"])),
        finding=re.compile(alt(t["findings"])),
        # (not "doesn't say it directly, but ...": an answer follows)
        refusal=re.compile(alt(t["refusal"]) + _NOT_SAID_DIRECTLY),
        refusal_parts=_declining_grammar(t, keep, str(doc["language"]) in _COMPOUNDING),
        hour=_hour_pattern(t, keep),
        day=_day_pattern(t, keep, list(doc.get("months", {}) or {})),
        refusal_words=frozenset(
            w.rstrip("*") for p in t["refusal"] for w in canonical_text(p).lower().split() if w != "..."
        )
        - {"~"}
        | frozenset(w for key in _PART_KEYS for p in t[key] for w in canonical_text(p).lower().split()),
        guess_marker_end=re.compile(alt(t["guess_markers"]) + tail),
        numbers=folded,
        number_word=re.compile(_alternation(folded)),
        half_after=re.compile(r"\s+" + _alternation(t["half_after"], keep)),
        ones=frozenset(canonical_text(w).lower() for w in t["one_words"]),
        number_nouns=frozenset(canonical_text(w).lower() for w in t["number_nouns"]),
        consensus=re.compile(alt(t["consensus"])),
        claim_negator=re.compile(alt(t["claim_negators"])),
        groups={_word(k, keep): v for k, v in groups.items()},
        role_heads={_word(k, keep): v for k, v in _word_map(doc, "role_heads", where).items()},
        role_fields={_word(k, keep): v for k, v in _word_map(doc, "role_fields", where).items()},
        # (a list of groups too: ``entre los agentes de aduanas y el equipo de cumplimiento``)
        group_after=re.compile(
            rf"\s+{alt(t['group_prepositions'])}(?P<groups>(?:\s+(?!{joins})[^\s.,;:!?]+){{1,4}}"
            rf"(?:\s*,?\s+{joins}(?:\s+(?!{joins})[^\s.,;:!?]+){{1,4}}){{0,2}})"
        ),
        group_before=re.compile(
            rf"(?:{alt(t['group_prepositions_before'])}|(?<![\w']){_EVERY})\s+"
            r"((?:[^\s.,;:!?]+\s+){0,3}[^\s.,;:!?]+)[\s,:]*(?:[^\s.,;:!?]+\s+){0,4}?[^\s.,;:!?]*\s*$"
        ),
        agreement=re.compile(alt(t["agreement_predicates"])),
        agreement_open=re.compile(alt(t["agreement_openers"])),
        body_agreement=re.compile(alt(t["body_predicates"])),
        bodies=tuple(sorted(_words(t["bodies"], keep))),
        breadth=re.compile(alt(t["breadth_words"])),
        unanimity=re.compile(alt(t["unanimity_words"])),
        pair=re.compile(alt(t["pair_words"])),
        every=re.compile(alt(t["all_words"])),
        group_range=re.compile(
            r"\s*,\s*"
            + alt(t["group_from"])
            + r"\s*(?P<first>(?:[^\s.;:!?]+\s+){0,4}?)"
            + alt(t["group_to"])
            + r"\s*(?P<last>[^\W\d_][^\s.,;:!?]*(?:\s+[^\W\d_][^\s.,;:!?]*){0,2})"
        ),
        group_range_words=_words(t["group_from"] + t["group_to"], keep),
        agreement_starts=re.compile(
            alt(
                p.split()[0]
                for p in t["agreement_predicates"] + t["agreement_openers"] + t["body_predicates"]
            )
        ),
        consensus_starts=re.compile(alt(p.split()[0] for p in t["consensus"])),
        agreement_words=frozenset(
            _word(w, keep).rstrip("*")
            for p in t["agreement_predicates"] + t["agreement_openers"] + t["body_predicates"]
            for w in _LETTERS.findall(_word(p, keep))
        ),
        consensus_words=frozenset(
            _word(w, keep).rstrip("*") for p in t["consensus"] for w in _LETTERS.findall(_word(p, keep))
        ),
        subject_fillers=_words(t["subject_fillers"], keep),
        subject_stops=_words(t["subject_stops"], keep),
        first_person=_words(t["first_person"], keep),
        not_people=_words(t["not_people"], keep),
        month_words=_words(list(doc.get("months", {}) or {}), keep),
        reply=re.compile(
            rf"{_REPLY_OPENS}(?:{alt(t['agreement_replies'])}{_REPLY_ENDS}"
            # (with nothing: ``D'accord sur rien tant que ...`` agrees to nothing)
            rf"|{alt(t['agreement_replies_with'])}(?=[ \t]+(?!{alt(t['negators'])})[^\W\d_]))",
            re.MULTILINE,
        ),
        inclusion_after=re.compile(
            rf"[ \t]*(?:{_INCLUSION_MARK}[ \t]*)?{including}\s+(?P<np>{nps}){_INCLUSION_EDGE}"
            rf"|[ \t]*(?:{_INCLUSION_MARK}[ \t]*(?:{joins}\s+)?|\s+{joins}\s+)(?P<np2>{nps})\s+{included}"
            rf"{_INCLUSION_EDGE}"
        ),
        inclusion_inside=re.compile(
            rf"\s*[,(]\s*(?:{including}\s+(?P<np>{nps})|(?P<np2>{nps})\s+{included})\s*[,)]"
        ),
        group_and=_words(t["group_and"], keep),
        inclusion_words=_words(t["group_including"] + t["group_included"] + t["group_and"], keep),
        # the first words of these phrases ("auch wenn", "y compris sur"), not an article inside one
        inclusion_stops=_words(
            (
                p.split()[0]
                for key in (
                    "subject_stops",
                    "claim_negators",
                    "conditional",
                    "about_words",
                    "first_person",
                    "copulas",
                )
                for p in t[key]
            ),
            keep,
        ),
    )


def _mapping(
    doc: Mapping[str, Any], key: str, where: str, what: str, ok: Callable[[Any], bool]
) -> dict[str, Any]:
    value = doc.get(key, {})
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and k.strip() and ok(v) for k, v in value.items()
    ):
        raise ValueError(f"{where}: {key} must map words to {what}")
    return value


def _figure_tables(doc: Mapping[str, Any], where: str) -> tuple[dict[str, Any], ...]:
    """A table's ``units``, ``months`` and ``rough_amounts``, checked (see the module documentation)."""
    return (
        _mapping(doc, "units", where, "unit names", lambda v: isinstance(v, str) and bool(v.strip())),
        _mapping(
            doc,
            "months",
            where,
            "month numbers",
            lambda v: type(v) is int and 1 <= v <= 12,  # not a bool
        ),
        _mapping(doc, "rough_amounts", where, "sizes", lambda v: type(v) in (int, float) and v > 0),
    )


def _words_alternation(words: Iterable[str]) -> str:
    """Table words or phrases (folded) as one alternation, longest first, any spacing between words."""
    ordered = sorted(set(words), key=len, reverse=True)
    return (
        "(?:" + "|".join(r"\s+".join(map(re.escape, w.split())) for w in ordered) + ")" if ordered else "(?!)"
    )


def _fold(word: str) -> str:
    return " ".join(canonical_text(word).lower().split())


@dataclass(frozen=True, slots=True)
class FigureWords:
    """Every table's words for reading figures (``units``, ``months``, ``rough_amounts``,
    ``designators``, and the one-word ``guess_markers``), compiled for canonical text in any case."""

    units: Mapping[str, str]
    #: at a figure's end: a unit written in words
    unit_after: re.Pattern[str]
    #: anywhere: a unit of more than one word ("por ciento")
    unit_phrase: re.Pattern[str]
    months: Mapping[str, int]
    #: at a figure's end: a month it is the day of ("22. Januar", "14 de marzo", "3rd of May")
    month_after: re.Pattern[str]
    #: at the end of the text before a figure: an English month it is the day of ("March 14")
    month_before: re.Pattern[str]
    rough_sizes: Mapping[str, float]
    #: a rough amount of a unit: groups ``rough`` and ``unit``
    rough_amount: re.Pattern[str]
    #: a rough amount with its noun dropped, its clause ending there ("Un par, supongo."): group ``rough``
    rough_alone: re.Pattern[str]
    designators: frozenset[str]
    #: a word of magnitude of any table ("mil", "Millionen", "milioni") and what it multiplies by
    scales: Mapping[str, float]
    #: right after digits, a word of magnitude ("250 mil euros", "1,2 milioni"): group ``scale``
    scale_after: re.Pattern[str]
    #: a rough amount of a word of magnitude ("ein paar Millionen", "quelques milliers"): a rough
    #: figure no number states
    rough_scale: re.Pattern[str]
    #: one and a unit ("a month", "un mois"): what a context states as one of its unit; groups
    #: ``unit``
    one_unit: re.Pattern[str]
    #: one and a unit guessed: after a marker of guessing or before a phrase of ``rough_after``
    #: ("environ un mois", "a month or so"); groups ``one`` and ``unit``, or ``one2`` and ``unit2``
    hedged_one: re.Pattern[str]
    #: one-word markers of guessing: a hyphenated pair after one is a range of figures ("forse 50-60")
    hedges: frozenset[str]
    #: any marker of guessing, of any table ("à vue de nez", "ich tippe auf", "probably")
    marker: re.Pattern[str]
    #: a word that likens a figure to another's ("also", "wie", "comme"), of any table
    analogy: re.Pattern[str]
    #: the answer calling its figure a guess ("that's a guess", "das ist geraten"), of any table
    self_guess: re.Pattern[str]
    #: words that give what the sources state, before the figures of their sentence ("Bekannt ist
    #: nur: 18 Busse", "Ce que je sais : 41 emprunts"): a value the context states there is restated
    stated_before: re.Pattern[str]

    def key(self, matched: str) -> str:
        """A matched table word or phrase as the tables' keys are written (folded, one space)."""
        return " ".join(matched.lower().split()).rstrip(".")


#: English markers of guessing before a figure of one ("in about a month"; the English rules keep
#: theirs in :mod:`proctor.graders._language`); "about" alone is also "on the subject of"
#: ("nothing about a year of claims")
_ENGLISH_HEDGES = (
    *(
        f"{verb} {about}"
        for verb in ("in", "for", "after", "within", "take", "takes", "took", "is", "be")
        for about in ("about", "around")
    ),
    "roughly",
    "approximately",
    "probably",
    "maybe",
    "perhaps",
    "likely",
    "nearly",
    "almost",
    "i'd say",
    "i would say",
    "i guess",
    "i'd guess",
    "my guess is",
)


#: The values of a word of magnitude: what digits before it are counted in
_MAGNITUDES = frozenset({1e3, 1e6, 1e9})
#: English words of magnitude (the English rules keep their number words in
#: :mod:`proctor.graders._language`)
_ENGLISH_SCALES = {"thousand": 1e3, "thousands": 1e3, "million": 1e6, "millions": 1e6, "billion": 1e9}


@cache
def figure_words() -> FigureWords:
    """Every table's words for reading figures (see the module documentation)."""
    units: dict[str, str] = {}
    months: dict[str, int] = {}
    english: dict[str, int] = {}
    rough: dict[str, float] = {}
    designators: set[str] = set()
    hedges: set[str] = set()
    markers: set[str] = set(_ENGLISH_HEDGES)
    ones: set[str] = set()
    after: set[str] = set()
    analogy: set[str] = set()
    self_guess: set[str] = set()
    stated: set[str] = set()
    scales: dict[str, float] = {w: v for w, v in _ENGLISH_SCALES.items()}
    for lang in TABLE_LANGUAGES:
        doc = _table(lang)
        where = f"languages/{lang}.yaml"
        lang_units, lang_months, lang_rough = _figure_tables(doc, where)
        units.update({_fold(k): v.strip() for k, v in lang_units.items()})
        folded_months = {_fold(k): v for k, v in lang_months.items()}
        months.update(folded_months)
        if lang == "en":
            english.update(folded_months)
        rough.update({_fold(k): float(v) for k, v in lang_rough.items()})
        designators.update(_fold(w) for w in _strings(doc, "designators", where))
        hedges.update(w for w in map(_fold, _strings(doc, "guess_markers", where)) if " " not in w)
        markers.update(map(_fold, _strings(doc, "guess_markers", where)))
        ones.update(map(_fold, _strings(doc, "one_words", where)))
        after.update(map(_fold, _strings(doc, "rough_after", where)))
        analogy.update(map(_fold, _strings(doc, "analogy_words", where)))
        self_guess.update(map(_fold, _strings(doc, "self_guess", where)))
        stated.update(map(_fold, _strings(doc, "stated_before", where)))
        scales.update(
            {_fold(k): float(v) for k, v in doc.get("numbers", {}).items() if float(v) in _MAGNITUDES}
        )
    unit = _words_alternation(units)
    # "un'ora": an elided article is glued to its unit
    one = rf"{_words_alternation(ones)}(?:\s+|(?<='))"
    b, e = r"(?<![\w'])", r"(?![\w'])"
    ordinal = r"(?:st|nd|rd|th|er|e|o|a)?\.?"  # 14th, 1er, 1º (canonical: 1o)
    return FigureWords(
        units=units,
        unit_after=re.compile(rf"\s?{unit}(?![\w'])", re.IGNORECASE),
        unit_phrase=re.compile(
            rf"(?<![\w']){_words_alternation(u for u in units if ' ' in u)}(?![\w'])", re.IGNORECASE
        ),
        months=months,
        month_after=re.compile(
            rf"{ordinal}\s+(?:(?:de|del|of|di)\s+)?(?P<month>{_words_alternation(months)})\.?(?![\w'])",
            re.IGNORECASE,
        ),
        month_before=re.compile(
            rf"(?<![\w'])(?P<month>{_words_alternation(english)})\.?\s+(?:the\s+)?$", re.IGNORECASE
        ),
        rough_sizes=rough,
        rough_amount=re.compile(
            rf"(?<![\w'])(?P<rough>{_words_alternation(rough)})\s+(?P<unit>{unit})(?![\w'])", re.IGNORECASE
        ),
        rough_alone=re.compile(
            rf"(?<![\w'])(?P<rough>{_words_alternation(rough)})(?=\s*(?:[,;:.!?)\n\u2013\u2014]|$))",
            re.IGNORECASE,
        ),
        designators=frozenset(designators),
        scales=scales,
        scale_after=re.compile(rf"\s+(?P<scale>{_words_alternation(scales)}){e}", re.IGNORECASE),
        rough_scale=re.compile(
            rf"{b}(?P<rough>{_words_alternation(rough)})\s+(?P<scale>{_words_alternation(scales)}){e}",
            re.IGNORECASE,
        ),
        one_unit=re.compile(rf"{b}{one}(?P<unit>{unit}){e}", re.IGNORECASE),
        hedged_one=re.compile(
            # up to three words of the clause between the marker and the amount ("waarschijnlijk
            # over een jaar", "à vue de nez, une petite heure", "talvez uma meia hora")
            rf"{b}{_words_alternation(markers)},?\s+(?:[^\W\d][\w']*\s+){{0,3}}?(?:(?:about|around)\s+)?"
            rf"(?P<one>(?:{one}{_GOOD}|{_HALF})(?P<unit>{unit})){e}(?!-)"
            # "a day or two", "een week of twee", "un jour ou deux": about one or two of a unit
            rf"|{b}(?P<one5>{one}{_GOOD}(?P<unit5>{unit}))\s+(?:or|of|ou|o|oder|oppure)\s+"
            rf"(?:two|three|deux|trois|dos|tres|zwei|drei|dois|tr[e\u00ea]s|due|tre|twee|drie|[23]){e}"
            rf"|{b}(?P<one2>{one}{_GOOD}(?P<unit2>{unit}))\s*,?\s+{_words_alternation(after)}{e}"
            # "so eine Stunde", "une bonne semaine, j'imagine": the hedge after it in its clause
            rf"|{b}(?P<one3>(?:so\s+)?{one}{_GOOD}(?P<unit3>{unit})){e}(?=[^.;:!?\n]{{0,24}}?{b}"
            rf"(?:{_words_alternation(markers)}|{_GUESSED_AFTER}){e})"
            rf"|{b}(?P<one4>so\s+{one}{_GOOD}(?P<unit4>{unit})){e}",
            re.IGNORECASE,
        ),
        hedges=frozenset(hedges),
        marker=re.compile(rf"{b}{_words_alternation(markers)}{e}", re.IGNORECASE),
        analogy=re.compile(rf"{b}{_words_alternation(analogy)}{e}", re.IGNORECASE),
        self_guess=re.compile(rf"{b}{_words_alternation(self_guess)}{e}", re.IGNORECASE),
        stated_before=re.compile(rf"{b}{_words_alternation(stated)}{e}", re.IGNORECASE),
    )


#: A guess said after the amount ("une semaine, j'imagine", "eine Stunde, schätze ich")
_GUESSED_AFTER = (
    r"j'imagine|je suppose|schätze ich|denke ich|vermute ich|supongo|imagino|suponho|immagino|suppongo|"
    r"denk ik|schat ik|i guess|i imagine|i'd say"
)
#: An adjective of size between "one" and its unit: still about one ("une bonne semaine", "eine gute
#: Stunde", "una semana larga" is after the unit and not read)
#: ... and half of one ("une demi-heure", "uma meia hora", "een half uur", or alone: "media hora",
#: "mezz'ora"): still a guessed amount of the unit
_HALF = r"(?:half|halbe|halben|halbes|demi-|media|medio|meia|meio|mezza|mezzo|mezz'|halve)\s*"
_GOOD = (
    r"(?:(?:bonne|bon|gute|guten|gutes|buona|buon|goede|boa|bom|good|solid|petite|petit|kleine|kleines|"
    rf"pequena|pequeno|peque\u00f1a|peque\u00f1o|piccola|piccolo|short|little)\s+|{_HALF})?"
)


def _words(phrases: Iterable[str], keep: frozenset[str]) -> frozenset[str]:
    """The single words of a table's list, as the rules read them (apostrophes apart: ``l'``)."""
    return frozenset(w for p in phrases for w in _LETTERS.findall(_word(p, keep)))


def _word_map(doc: Mapping[str, Any], key: str, where: str) -> Mapping[str, str]:
    """A table's optional map of words to English names (``groups``, ``role_heads``)."""
    found = doc.get(key, {})
    if not isinstance(found, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k.strip() and v.strip() for k, v in found.items()
    ):
        raise ValueError(f"{where}: {key} must map words to group names")
    return found


@cache
def _table(language: str) -> Mapping[str, Any]:
    """The parsed table of ``language`` (one of :data:`TABLE_LANGUAGES`)."""
    if language not in TABLE_LANGUAGES:
        raise KeyError(language)
    where = f"languages/{language}.yaml"
    source = resources.files("proctor.graders").joinpath("languages", f"{language}.yaml").read_text("utf-8")
    doc = yaml.safe_load(source)
    if not isinstance(doc, dict) or doc.get("language") != language:
        raise ValueError(f"{where}: language must be {language!r}")
    if not isinstance(doc.get("accents_optional"), bool):
        raise ValueError(f"{where}: accents_optional must be true or false")
    for word in _strings(doc, "homographs", where):
        if not writes_accents(word):
            raise ValueError(f"{where}: homograph {word!r} has no accent")
    return doc


@cache
def homographs() -> frozenset[str]:
    """Every table's homographs, lower case (a word one table reads with its accent, every table
    does: one text for them all)."""
    return frozenset(
        unicodedata.normalize("NFC", w).lower()
        for lang in TABLE_LANGUAGES
        for w in _strings(_table(lang), "homographs", lang)
    )


@cache
def _compiled(language: str, strict: bool) -> Lexicon:
    keep = homographs() if strict else frozenset()
    return _compile(_table(language), f"languages/{language}.yaml", keep)


def lexicon(language: str, accented: bool = True) -> Lexicon:
    """The compiled table of ``language`` (one of :data:`TABLE_LANGUAGES`), for an answer that
    writes accents (``accented``) or none (see ``accents_optional`` in the module documentation)."""
    return _compiled(language, accented or not _table(language)["accents_optional"])


def lexicons(languages: Iterable[str], accented: bool = True) -> list[Lexicon]:
    """The tables of those of ``languages`` that have one."""
    return [lexicon(lang, accented) for lang in TABLE_LANGUAGES if lang in set(languages)]


#: Combining marks (a decomposed accent)
_MARKS = re.compile("[\u0300-\u036f]*")
#: A Latin letter with a diacritic, or a combining mark: the answer writes accents.
_ACCENTED = re.compile("[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u0300-\u036f]")
_LETTERS = re.compile(r"[^\W\d_]+")


def writes_accents(text: str) -> bool:
    """Whether ``text`` (as written, not canonical) writes any accent."""
    return _ACCENTED.search(text) is not None


@text_cache()
def rules_text(original: str) -> str:
    """The canonical text of ``original`` as the tables read it: the same offsets, and the same
    characters except that a homograph written with its accent keeps it (``Sí``, ``würde``)."""
    c = canonical(original)
    if not c.changed:
        return c.text
    keep = homographs()
    twins = {canonical_text(h).lower() for h in keep}
    out: list[str] | None = None
    for m in _LETTERS.finditer(c.text):
        word = m.group()
        if word.lower() not in twins:
            continue
        s, e = c.span(m.start(), m.end())
        marks = _MARKS.match(original, e)  # a mark after the word's last letter belongs to it
        e = marks.end() if marks else e
        written = unicodedata.normalize("NFC", original[s:e])
        if written.lower() in keep:  # then as long as the word: one letter for one
            out = out if out is not None else list(c.text)
            out[m.start() : m.end()] = written
    return "".join(out) if out is not None else c.text


@dataclass(frozen=True, slots=True)
class Rules:
    """How the tables read one answer: the text they read (:func:`rules_text`), whether the answer
    writes accents, and which languages read the sentence at each position of it."""

    text: str
    accented: bool
    languages_at: Callable[[int], Iterable[str]]

    def at(self, pos: int) -> list[Lexicon]:
        """The tables that read the sentence at ``pos``."""
        return lexicons(self.languages_at(pos), self.accented)


#: How far back a clause is read: before a label (a condition, a negation, the clause before a
#: comma), a guessed verdict (its marker) and a claim of agreement (its negator).
_REACH = 120
#: How far back a sentence is read for the condition or figure that makes a conditional verb a rule.
_SENTENCE_REACH = 240
_CAPS = re.compile(r"(?<![\w])[A-Z][A-Z][A-Z_-]{2,}(?![\w])")
#: An upper-case word ending a clause: its consequent, not a name inside the condition
#: ("Si le voyant ALARM s'allume, la bande est HIGH": a rule).
_CAPS_AT_END = re.compile(r"(?<![\w])[A-Z][A-Z][A-Z_-]{2,}[\s\"'`*_)]*$")
#: What opens a sentence, before a clause that opens with a verb (``""``: the text's start)
_SENTENCE_MARKS = frozenset(("", ".", "!", "?", ";", ":", "\n"))


def _in_figure(text: str, i: int) -> bool:
    """Whether the character at ``i`` is a decimal or thousands separator, or a clock's colon: a
    point, comma or colon between two digits (``0,60``, ``1.000,5``, ``1,000.5``, ``22:00``). One
    after a figure and before a space (``0,60, la bande``) ends a clause like any other."""
    return text[i] in ".,:" and text[i - 1 : i].isdigit() and text[i + 1 : i + 2].isdigit()


def _clause_at(lex: Lexicon, text: str, pos: int) -> tuple[str, str, int]:
    """The lower-case clause of ``text`` that ends at ``pos`` (at most :data:`_REACH` characters),
    as ``lex`` breaks clauses, with the break that opens it and where that starts (``""`` and the
    window's start when none does)."""
    start = max(0, pos - _REACH)
    window = text[start:pos].lower()
    cut, mark, at = 0, "", start
    for m in lex.clause_break.finditer(window):
        # a word of a double negation breaks nothing ("alleen maar": only, not "but")
        if not _in_figure(text, start + m.start()) and not (
            m.group()[:1].isalpha() and lex.double_end.search(window, 0, m.end())
        ):
            cut, mark, at = m.end(), m.group(), start + m.start()
    return window[cut:], mark, at


def _clause(lex: Lexicon, text: str, pos: int) -> str:
    """The lower-case clause of ``text`` that ends at ``pos``, as ``lex`` breaks clauses."""
    return _clause_at(lex, text, pos)[0]


def _conditional(lex: Lexicon, clause: str) -> bool:
    """Whether a condition word makes ``clause``, which ends at a label, hypothetical.

    Not when the condition only frames how the answer looks at the facts (``si se compara con``,
    ``wenn man ... vergleicht``), nor when the word stands right before the label (fillers
    aside) in the middle of its clause: it opens no condition there but says what the thing is
    classed as (Dutch ``geldt als ELEVATED``, ``ik beoordeel dit als ELEVATED``). Opening the
    clause, it is a rule (``Als HIGH: direct melden``)."""
    if lex.framing.search(clause) is not None:
        return False
    return any(
        not (
            clause[: m.start()].strip()
            and lex.to_label.match(clause, m.end())
            # a verb of being between it and the label makes it a condition again ("se é ALERT":
            # whether it is), and a word of choice always opens one ("trancher entre ALERT et ...")
            and not lex.copula_end.search(clause, m.end())
            and m.group().strip() not in _CHOICE_WORDS
        )
        # "between" the thing's parts, no bands after it, is a place, no choice ("con 3 mm de
        # exceso entre hojas toca X"): a choice names its band or joins two ("entre X y ...")
        and not (
            m.group().strip() in _CHOICE_WORDS
            and not lex.to_label.match(clause, m.end())
            and not _CHOICE_JOIN.search(clause, m.end())
        )
        for m in lex.conditional.finditer(clause)
    )


#: The word that joins the two bands of a choice ("entre X y Y", "zwischen X und Y", "X or Y")
_CHOICE_JOIN = re.compile(r"\b(?:y|e|et|und|en|and|o|ou|oder|of|or)\b")


#: Condition words that open a choice between bands wherever they stand ("between")
_CHOICE_WORDS = frozenset({"entre", "tra", "fra", "zwischen", "tussen", "between"})


def _after_condition(lex: Lexicon, text: str, pos: int) -> bool:
    """Whether the clause ending at ``pos`` is the consequent of a threshold's condition: the
    clause before it opens with a condition word, sets a threshold and a comma ends it (``Si le
    débit dépasse 0,60, la bande est HIGH``, ``Wenn ... überschreitet, ist die Stufe HIGH``). A
    band's rule, not the state now; ``Si le capteur est fiable, ...`` is a caveat, not a rule."""
    between, mark, at = _clause_at(lex, text, pos)
    marked = False
    if lex.consequence_opens.match(mark.lower()):
        # a word of consequence that ends a clause in the table ("..., entonces es X")
        between, mark, at = _clause_at(lex, text, at)
        marked = not between.strip()
    if mark != ",":
        return False
    condition, opened_by, _ = _clause_at(lex, text, at)
    begin = at - len(condition)
    caps = _CAPS_AT_END.search(text, begin, at)
    if caps is not None and lex.copula_end.search(text[begin : caps.start()].lower()):
        # the condition already holds its consequent ("Als het stijgt is het HIGH, nu ..."); a
        # label after no verb of being is the event's subject ("Si se enciende el piloto ALARM")
        return False
    opens = lex.condition_opens.match(condition) is not None or (
        opened_by in _SENTENCE_MARKS and lex.verb_first.match(condition) is not None
    )
    # a threshold, or any event when the band is reached by a verb of change ("Se a reinspeção
    # correr bem, passa a PASS": where it goes if it does) or its clause opens with a word of
    # consequence ("Gaat de rem onderuit, dan is het X", "Si le frein lâche, alors c'est X")
    consequent = _clause(lex, text, pos)
    held = (
        lex.threshold.search(condition) is not None
        or lex.moves_to_end.search(consequent)
        # (an event, not a state: "Si le capteur est fiable, alors c'est X" is a caveat)
        or ((lex.consequence_opens.match(consequent.lower()) or marked) and not lex.copula.search(condition))
    )
    return opens and bool(held) and lex.framing.search(condition) is None


_SENTENCE_START = re.compile(r"[.!?;\n](?:\s|$)")
_DIGIT = re.compile(r"\d")
_FIGURE_AT_END = re.compile(r"[-+~]?\d[\d.,]*\s*(?:%|[a-z\u00b0\u00b5]{1,6}(?:/[a-z]{1,4})?)?\s*$")


def _change(lexes: list[Lexicon], text: str, s: int, e: int) -> str | None:
    """Whether the label at ``[s, e)`` is where a change of band starts (``"from"``: ``von HIGH auf
    MEDIUM herabgestuft``), where it ends (``"to"``), or an end of a range (``"range"``: ``de LOW
    à HIGH selon les jours``, no word of change in the sentence in any of these languages); None
    when it is neither."""
    raw = text[max(0, s - _REACH) : s]  # as written: the patterns end at the label, no clause break in them
    if _ARROW_AFTER.match(text, e):
        return "from"  # an arrow is a change in any language: "HIGH → MEDIUM"
    if _ARROW_BEFORE.search(raw):
        return "to"
    where = None
    for lex in lexes:
        if lex.changed_from_end.search(raw.lower()):
            return "from"  # "MEDIUM, herabgestuft von HIGH"
        if lex.change_to_after.match(text, e) and lex.change_from_end.search(raw.lower()):
            where = "from"
        elif lex.change_dest_end.search(raw):
            where = "to"
    if where is None:
        return None
    before = _SENTENCE_START.split(text[max(0, s - _SENTENCE_REACH) : s])[-1]
    after = _SENTENCE_START.split(text[e : e + _SENTENCE_REACH])[0]
    sentence = f"{before} {after}".lower()
    if any(lex.change_future.search(before.lower()) for lex in lexes):
        return "range"  # a change still to come: no band of it is the state now
    return where if any(lex.change_word.search(sentence) for lex in lexes) else "range"


def _next_label(text: str, e: int, spans: Sequence[tuple[int, int]]) -> tuple[int, int] | None:
    """The next of the case's labels after ``e`` (``spans``: where they are, in order)."""
    i = bisect.bisect_left(spans, (e, -1))
    return spans[i] if i < len(spans) else None


def _retracted(lex: Lexicon, text: str, e: int, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether the answer takes back the band that ends at ``e`` before naming the one that
    corrects it: a retraction of ``lex`` (``that was an overreaction``, ``me equivoqué``, ``das
    war übertrieben``) in the rest of the band's sentence or the next, with no negation or
    condition before it in its clause, and another label after it (``I first logged it as RED;
    that was an overreaction. AMBER.``). Without a band after it, the retraction may be of
    anything else the answer said (``RED. Skipping the restart was a mistake.``)."""
    nxt = _next_label(text, e, spans)
    if nxt is None:
        # the band that corrects it may come first ("Classificazione: PRIORITY. (Avevo scritto
        # ROUTINE, ma era un errore.)"): then the retraction is in the band's own sentence
        if not spans or spans[0][1] >= e:
            return False
        between = _SENTENCE_START.split(text[e : e + _SENTENCE_REACH], maxsplit=1)[0]
        return any(
            not lex.claim_negator.search(_clause(lex, text, e + m.start()))
            for m in lex.retracted_after.finditer(between.lower())
        )
    between = text[e : nxt[0]]
    if len(_SENTENCE_START.split(between, maxsplit=3)) > 3:
        return False  # more than one sentence between the band and its correction
    return any(
        not lex.claim_negator.search(_clause(lex, text, e + m.start()))
        for m in lex.retracted_after.finditer(between.lower())
    )


#: English conditions and modal verbs, which the English table leaves to ``_language``: a band
#: after one is no band the answer says it went to ("if errors rise to 25 it goes to RED")
_ENGLISH_IF = re.compile(r"\b(?:if|unless|when|whenever|once|should|may|might|could|would|will|can)\b")
_ENGLISH_CONDITION = re.compile(r"\b(?:if|unless|when|whenever|once|should)\b")


def without_caveats(lex: Lexicon, sentence: str) -> str:
    """``sentence`` (lower case) without the conditions that are caveats of a verdict, not
    conditions on the facts: a condition word, then a word of ``framing`` in its clause ("wenn man
    das gebundene Chlor ernst nimmt", "if you take the chlorine seriously"). A revision to a band
    under a caveat still names it."""
    for f in reversed(list(lex.framing.finditer(sentence))):
        # the condition word may open the framing itself ("if you take ... seriously")
        opens = [m.start() for m in lex.conditional.finditer(sentence, 0, f.end())]
        if lex.language == "en":
            opens += [m.start() for m in _ENGLISH_CONDITION.finditer(sentence, 0, f.end())]
        start = max((o for o in opens if o <= f.start()), default=-1)
        if start >= 0 and not _CAVEAT_BREAK.search(sentence, start, f.start()):
            sentence = sentence[:start] + sentence[f.end() :]
    return sentence


#: What ends a caveat's clause before its word of framing
_CAVEAT_BREAK = re.compile(r"[.;:!?()\n]")


def _english_condition(lex: Lexicon, sentence: str) -> bool:
    """Whether ``sentence`` holds a condition word English reads (its table leaves them to
    ``_language``): "if she says the boots were defective, it'd be EXCHANGE"."""
    return lex.language == "en" and _ENGLISH_CONDITION.search(sentence) is not None


def _superseded(lex: Lexicon, text: str, e: int, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether the band that ends at ``e`` is one the answer then says it changed from: the next
    label, in the rest of its sentence or the next, is where the band went, after a word of now
    (``Era HOLD, ora BLOCK``, ``Antes era APPROVE, agora é REVIEW``) or after a change's ``to``
    in a sentence with a word of change (``stand zuerst auf HOLD, wurde aber auf BLOCK
    hochgestuft``, ``abriu como SEV1, mas baixamos para SEV2``), and is itself no condition, no
    future and not negated. Without a word of change (``AMBER, close to RED``) both stand."""
    found = _next_label(text, e, spans)
    if found is None:
        return False
    ns, ne = found
    if len(_SENTENCE_START.split(text[e:ns], maxsplit=3)) > 3:
        return False
    clause = _clause(lex, text, ns)
    if lex.negated_end.search(clause) or _conditional(lex, clause) or lex.change_end.search(clause):
        return False
    if lex.negated_change_end.search(clause):
        return False  # "P1. ..., quindi niente declassamento a P2": no change made
    sentence = _SENTENCE_START.split(text[max(0, ns - _SENTENCE_REACH) : ns])[-1].lower()
    if lex.change_future.search(sentence) or _conditional(lex, sentence) or _ENGLISH_IF.search(sentence):
        return False
    if lex.now_end.search(clause) or lex.became_after.match(text, ne):
        return True
    after = _SENTENCE_START.split(text[ne : ne + _SENTENCE_REACH])[0].lower()
    if lex.conditional_after.match(text, ne) or _ENGLISH_CONDITION.search(after):
        return False  # "to HIGH handling only if it exceeds 0.60"
    if _event_held(lex, text, ns, ne):
        return False  # "le passage à HIGH entre en vigueur s'il ne regèle pas"
    return lex.change_to_end.search(clause) is not None and (
        lex.change_word.search(sentence) is not None or lex.change_word.search(after) is not None
    )


def _label_end(text: str, s: int) -> int:
    """Where the label word that starts at ``s`` ends."""
    e = s
    while e < len(text) and (text[e].isalnum() or text[e] in "_-"):
        e += 1
    return e


def _rather(lex: Lexicon, text: str, s: int, clause: str) -> bool:
    """Whether the word before the label at ``s`` is "rather" (``antes``, ``eerder``) after a
    clause that negates a label (``Não o classificaria como HIGH; antes MEDIUM``), not "before"
    (``Het was niet duidelijk; eerder HIGH, nu MEDIUM``)."""
    if not lex.rather_end.search(clause):
        return False
    at = _clause_at(lex, text, s)[2]
    # an aside may stand between ("No lo llamaría X, como puso la planta; antes Y"), or a reason
    # in a sentence of its own ("...; sin reexposición no hay base. Antes Y"): the clauses before
    # it are read back to the one with a label
    crossed = False
    for _ in range(_RATHER_CLAUSES):
        before, mark, opened = _clause_at(lex, text, at)
        if _LABEL_IN.search(text, at - len(before), at) is not None:
            # across a sentence, "Antes X, ahora Y" is still "before": no label may follow
            return lex.claim_negator.search(before) is not None and not (crossed and _label_follows(text, s))
        if mark not in (",", ";", "."):
            return False
        crossed = crossed or mark != ","
        at = opened
    return False


def _label_follows(text: str, s: int) -> bool:
    """Whether another label follows the one at ``s`` in its sentence."""
    m = _LABEL_IN.match(text, s)
    e = m.end() if m else s
    end = _SENTENCE_START.search(text, e)
    return _LABEL_IN.search(text, e, end.start() if end else len(text)) is not None


#: How many clauses back a "rather" looks for the negated label it sets itself against
_RATHER_CLAUSES = 3


def label_use(
    lexes: Iterable[Lexicon], text: str, s: int, e: int, spans: Sequence[tuple[int, int]]
) -> str | None:
    """How the label at ``[s, e)`` of ``text`` is used by these languages' rules: ``"named"`` (a
    double negation, or where a change of band ends), ``"negated"`` (``"denied"`` when by words
    after it: ``X comes too late``), ``"hypothetical"``,
    ``"qualifier"`` (the value of a field such as confidence), ``"rule"`` (what the band is for:
    ``X ist für Sachen gedacht, die ...``), or None (nothing said). ``spans``:
    where the case's labels are in ``text``, in order, for the rules that read the label after
    this one (a retraction, a change)."""
    lexes = list(lexes)
    if any(
        lex.qualifier_end.search(text[max(0, s - 40) : s].lower()) or lex.qualifier_after.match(text, e)
        for lex in lexes
    ):
        return "qualifier"
    change = _change(lexes, text, s, e)
    if change == "from":
        return "negated"  # the band before a change: past
    if change == "range":
        return "hypothetical"
    for lex in lexes:
        raw = _clause(lex, text, s)
        clause = _FIGURE_AT_END.sub("", raw)
        if lex.not_only_end.search(clause):
            return "negated"  # "nicht bloß HIGH", "not only HIGH but ...": set aside as not enough
        if lex.double_end.search(clause):
            # "nothing but X" names X, unless a condition holds it ("wäre es nur ABNORMAL" after
            # "Läge das Kalium unter 6,0", "bei 5,8 wäre es nur X"): then only "only"
            return "hypothetical" if _held_by_condition(lex, text, s, clause) else "named"
        # where a change ends is the state now, whatever time dates the change ("yesterday")
        past = change is None and (
            (
                lex.past_end.search(clause)
                and not _rather(lex, text, s, clause)
                and not lex.since_past_end.search(clause)
            )
            or lex.past_after.match(text, e)
        )
        denied = (
            lex.denied_after.match(text, e) or _retracted(lex, text, e, spans) or _rejected(lex, text, s, e)
        )
        # a cue right before the label, after a figure, is no unit of it ("Abschnitt 4 weder HIGH")
        if lex.negated_end.search(clause) or lex.negated_end.search(raw) or past:
            return "negated"
        if denied:
            # denied by what follows it: so is a band joined to it ("READY or SET comes too late")
            return "denied"
        if lex.negated_change_end.search(clause):
            return "negated"  # "niente declassamento a X": no change to it
        if (
            lex.purpose_after.match(text, e)
            # the verb before the band, the condition after it: "Laut Regelwerk gilt X, wenn ...";
            # a source's code before the verb is no figure with its unit ("Laut FDG-4 gilt X")
            or (
                (lex.applies_end.search(clause) or lex.applies_end.search(raw))
                and lex.applies_if.match(text, e)
            )
            # a relative clause between the band and its rule ("La X que pide el fabricante solo cabe si")
            or lex.relative_rule.match(text, e)
        ):
            return "rule"
        if (
            _conditional(lex, clause)
            or (lex.conditional_after.match(text, e) and not _caveat_after(lex, text, e))
            or (lex.purpose_end.search(clause) and lex.requirement_after.match(text, e))
            or _required_back(lex, text, e)
            or lex.requirement_end.search(clause)
            or (lex.change_end.search(clause) and not lex.passive_end.search(clause))
            or _after_condition(lex, text, s)
        ):
            return "hypothetical"
        if _mood_held(lex, text, s, clause) or _event_held(lex, text, s, e):
            return "hypothetical"
        if _superseded(lex, text, e, spans):
            return "negated"  # the band before the one it went to
    return "named" if change == "to" else None


def _rejected(lex: Lexicon, text: str, s: int, e: int) -> bool:
    """Whether the label at ``[s, e)`` is conceded, then rejected: a word of concession in its clause
    or right after it, then a contrast that denies it ("the fever fits X too, but that wouldn't
    explain the oedema", "passt auch zu X, aber das erklärt das Ödem nicht")."""
    m = lex.rejected_after.match(text, e)
    if m is None:
        return False
    return bool(lex.conceded.search(_clause(lex, text, s)) or lex.conceded.search(text[e : m.end()].lower()))


def _required_back(lex: Lexicon, text: str, e: int) -> bool:
    """Whether a requirement after the label that ends at ``e`` refers back to it by a pronoun, set
    against it by a contrast ("X, aber dafür bräuchte es mehr als 20 %", "X came up, but for that
    you'd need ..."): what the band would need, no verdict."""
    m = lex.requirement_back.match(text, e)
    return m is not None and lex.contrast.search(text[e : m.end() + _CONTRAST_AFTER].lower()) is not None


#: How far after a requirement its contrast may stand ("dafür bräuchte es aber ...")
_CONTRAST_AFTER = 24


def _caveat_after(lex: Lexicon, text: str, e: int) -> bool:
    """Whether the condition right after the label that ends at ``e`` is a caveat (a word of
    ``framing`` in the rest of its clause: "CLOSE_POOL si on tient compte du chlore combiné")."""
    after = lex.clause_break.split(text[e : e + _REACH].lower(), maxsplit=1)[0]
    return lex.framing.search(_SENTENCE_START.split(after, maxsplit=1)[0]) is not None


def _held_by_condition(lex: Lexicon, text: str, s: int, clause: str) -> bool:
    """Whether a condition, or the conditional mood in a sentence with a condition or a figure,
    makes the label at ``s`` hypothetical (as :func:`label_use` reads it)."""
    return _conditional(lex, clause) or _after_condition(lex, text, s) or _mood_held(lex, text, s, clause)


def _mood_held(lex: Lexicon, text: str, s: int, clause: str) -> bool:
    """Whether the conditional mood in the label's clause, in a sentence with a condition or a
    figure, makes it hypothetical ("bei 5,8 wäre es X", "Legt der Wind zu, wäre HIGH denkbar")."""
    if not lex.conditional_mood.search(clause):
        return _mood_after_condition(lex, text, s)
    sentence = _SENTENCE_START.split(text[max(0, s - _SENTENCE_REACH) : s].lower())[-1]
    return bool(_DIGIT.search(sentence) or _conditioned(lex, sentence))


def _mood_after_condition(lex: Lexicon, text: str, s: int) -> bool:
    """Whether the label at ``s`` opens the consequent of a condition, before a comma that ends it,
    as the subject of a verb in the conditional mood after it ("If the installer sends it, an
    APPROVED_WITH_LIMIT could be looked at later", "Si ..., un APPROVED_WITH_LIMIT pourrait ...")."""
    _, mark, at = _clause_at(lex, text, s)
    if mark != ",":
        return False
    condition, opened_by, _ = _clause_at(lex, text, at)
    opens = lex.condition_opens.match(condition) is not None or (
        opened_by in _SENTENCE_MARKS and lex.verb_first.match(condition) is not None
    )
    if not opens or lex.framing.search(condition) is not None:
        return False
    e = _label_end(text, s)
    after = lex.clause_break.split(text[e : e + _REACH].lower(), maxsplit=1)[0]
    return lex.conditional_mood.search(after) is not None


def _conditioned(lex: Lexicon, sentence: str) -> bool:
    """Whether ``sentence`` (lower case) holds a condition: a condition word, or a condition that
    opens it with a verb (``Legt der Wind zu, ...``, ``Had coliforms been found ...``)."""
    return bool(
        _conditional(lex, sentence)
        or _english_condition(lex, sentence)
        or lex.condition_opens.match(sentence)
        or lex.verb_first.match(sentence)
    )


def _event_held(lex: Lexicon, text: str, s: int, e: int) -> bool:
    """Whether the label at ``[s, e)`` is the consequent of a condition that waits for an event
    in ways :func:`_after_condition` does not read: a past counterfactual (``Als er coliformen
    waren gevonden, was het X geweest``) or a band's step that comes into force under a condition
    before or after it (``If ..., the step up to X kicks in``, ``X scatta se ...``)."""
    before = _SENTENCE_START.split(text[max(0, s - _SENTENCE_REACH) : s].lower())[-1]
    counterfactual = lex.counterfactual_after.match(text.lower(), e) or lex.counterfactual_end.search(
        _clause(lex, text, s)
    )
    # the condition may be a preposition opening the sentence ("Bij een melding binnen 7 dagen was
    # het PAY geweest", "With a report in time it would have been PAY")
    # (the sentence may open with a heading: "NB: had the flag state replied in time, ...")
    opened = before.rsplit(": ", 1)[-1]
    if counterfactual and (
        _conditioned(lex, before) or _conditioned(lex, opened) or lex.condition_preposition.match(before)
    ):
        return True
    after = _SENTENCE_START.split(text[e : e + _SENTENCE_REACH].lower())[0]
    clause_after = lex.clause_break.split(after, maxsplit=1)[0]
    if not lex.takes_effect.search(f"{_clause(lex, text, s)} {clause_after}"):
        return False
    return _conditioned(lex, before) or _conditional(lex, after) or _english_condition(lex, after)


def _by_the_answer(lex: Lexicon, before: str) -> bool:
    """Whether one of the two words before a verb of ``reported_before`` is the answer's own "I" or
    "we" (``je plaide pour X``, ``we keep pushing for X``): then the band is not another's."""
    return any(w in lex.first_person for w in _LETTERS.findall(before)[-2:])


#: The end of a sentence, not a figure's point ("0.60")
_SENTENCE_END = re.compile(r"[.!?\n](?=\s|$)")


def rule_met(lexes: Iterable[Lexicon], text: str, e: int, until: int) -> bool:
    """Whether, between a band's rule that ends at ``e`` and ``until`` (the next label), in the
    rest of its sentence or the next, these languages' rules read the case said to meet the rule
    (``- e é exatamente o caso do T7``): then the band is the answer's."""
    window = text[e:until].lower()
    ends = [m.end() for m in _SENTENCE_END.finditer(window)]
    if len(ends) > 1:
        window = window[: ends[1]]
    for lex in lexes:
        for m in lex.rule_met.finditer(window):
            before = list(_LETTERS.finditer(window, 0, m.start()))[-2:]
            if not lex.negator.search(window, before[0].start() if before else m.start(), m.end()):
                return True
    return False


def reported(lexes: Iterable[Lexicon], text: str, s: int) -> bool:
    """Whether these languages' rules read the label at ``s`` as given by another source (a bot,
    a pager, a colleague: ``le bot indiquait RED``, ``laut Dashboard RED``)."""
    for lex in lexes:
        clause, mark, at = _clause_at(lex, text, s)
        source = lex.reported_end.search(clause)
        if source is not None and not _by_the_answer(lex, clause[: source.start()]):
            return True
        if lex.reported_after.match(text, _label_end(text, s)):
            return True
        # "Según el bot, RED": the source before a comma, nothing but fillers after it
        if mark == "," and lex.to_label.match(clause) and lex.reported_end.search(_clause(lex, text, at)):
            return True
    return False


#: Words that draw a conclusion, in every language ("so", "donc", "also", "así que", "dus")
_CONCLUDING = re.compile(
    r"(?<![\w'])(?:so|thus|hence|therefore|donc|also|daher|somit|folglich|quindi|dunque|pertanto|portanto|"
    r"logo|dus|daarom|por\s+isso|asi\s+que|por\s+(?:lo\s+)?tanto)(?![\w'])"
)


def concluded(text: str, s: int) -> bool:
    """Whether a word of conclusion leads to the label at ``s``, at most a few words before it in its
    sentence (``Hier sind es 3 mm, also MAJOR_REMEDIAL``): the answer draws its verdict there."""
    lead = _SENTENCE_START.split(text[max(0, s - _SENTENCE_REACH) : s])[-1].lower()
    return any(len(lead[m.end() :].split()) <= _CONCLUDED_WORDS for m in _CONCLUDING.finditer(lead))


#: How many words may stand between a word of conclusion and the label it leads to
_CONCLUDED_WORDS = 3


def scoped_elsewhere(lexes: Iterable[Lexicon], text: str, s: int) -> bool:
    """Whether the label at ``s`` is a source's band for another scope than the answer's, set
    against the answer's own: in its sentence, a paper (``source_nouns``) and a scope (``scope_before``:
    ``Por debajo de 2.000 m``, ``for the south slopes``, ``in the afternoon``) before the word of
    contrast after it, and after that contrast a word of conclusion before another label (``...
    el boletín da MODERATE, pero nuestra ruta va por encima de 2.200 m, así que trabajamos con
    CONSIDERABLE``). A paper's band with no scope, no contrast or no band concluded after it
    stands (``The runbook says AMBER``)."""
    e = _label_end(text, s)
    before = _SENTENCE_START.split(text[max(0, s - _SENTENCE_REACH) : s])[-1].lower()
    after = _SENTENCE_START.split(text[e : e + _SENTENCE_REACH])[0]
    for lex in lexes:
        contrast = lex.contrast.search(after.lower())
        if contrast is None:
            continue
        head = f"{before} {after[: contrast.start()].lower()}"
        if _LABEL_IN.search(after, 0, contrast.start()) or lex.negator.search(head):
            continue
        if lex.scope.search(head) is None or lex.source_noun.search(head) is None:
            continue
        tail = after[contrast.end() :]
        conclusion = _CONCLUDING.search(tail.lower())
        if conclusion is not None and _LABEL_IN.search(tail, conclusion.end()) is not None:
            return True
    return False


def _hour_pattern(t: Mapping[str, list[str]], keep: frozenset[str]) -> re.Pattern[str]:
    words = _alternation(t["hour_words"], keep) if t["hour_words"] else r"(?!)"
    before = _alternation(t["hour_before"], keep) if t["hour_before"] else r"(?!)"
    negators = _alternation(t["negators"], keep)
    return re.compile(
        rf"(?<![\w']){before}\s+(?P<hour>(?:[01]?\d|2[0-4])(?:\s?[:.h]\s?[0-5]\d(?:\s*{words})?|\s*{words}|h(?!\w)"
        # a bare hour ends its clause or comes before a negator ("alle 10 non c'è")
        rf"|(?=\s*(?:[.;:,!?)\n\u2013\u2014]|\s-\s|$)|\s+{negators})))(?![\w%])"
    )


def _day_pattern(t: Mapping[str, list[str]], keep: frozenset[str], months: list[str]) -> re.Pattern[str]:
    before = _alternation(t["day_before"], keep) if t["day_before"] else r"(?!)"
    negators = _alternation(t["negators"], keep)
    month = _alternation(months, keep) if months else r"(?!)"
    return re.compile(
        rf"(?<![\w']){before}\s+(?P<day>(?:[12]?\d|3[01])(?![\d,]\d)"
        # an ordinal's letters say it is a day ("the 21st", "de 21e", "il 21°")
        rf"(?:(?:st|nd|rd|th|e|ste|de|er|\u00ba|\u00b0)(?!\w)"
        # a German ordinal's point, a word after it ("vom 21. steht", "am 21. Juli")
        rf"|\.(?=\s+[^\W\d_])"
        # a bare day: before a month, a clause's end or a negator ("del 21 non c'è")
        rf"|(?=\s+(?:(?:de|of|di|van)\s+)?{month}|\s*(?:[;:,!?)\n\u2013\u2014]|\.(?!\d)|\s-\s|$)"
        rf"|\s+(?:{negators}|n'))))"
    )


def hours_masked(lexes: Iterable[Lexicon], text: str) -> str:
    """``text`` with each time of day after a preposition (``pour 10 h``, ``alle 10``) and each day
    of the month after one (``del 21``, ``vom 21.``, ``of the 21st``) written in letters, the offsets
    kept: the phrases of declining read it as part of the declined thing, not as a figure the paper
    does not reach nor one the answer gives."""
    low = text.lower()
    if len(low) != len(text) or not _DIGIT_IN_TEXT.search(low):
        return text
    out = list(text)
    for lex in lexes:
        spans = [m.span("hour") for m in lex.hour.finditer(low)]
        spans += [m.span("day") for m in lex.day.finditer(low) if _a_day(lex, text, m.end("day"))]
        for start, end in spans:
            for i in range(start, end):
                if not out[i].isspace():
                    out[i] = "x"
    return "".join(out)


_NEXT_WORD = re.compile(r"\s+([^\W\d_]+)")


def _a_day(lex: Lexicon, text: str, end: int) -> bool:
    """Whether a day's German point goes on with its sentence: a month or a word in lower case after
    it ("am 21. Juli", "vom 21. steht"), not a new sentence ("Das war am 21. Danach ...")."""
    if text[end - 1 : end] != ".":
        return True
    word = _NEXT_WORD.match(text, end)
    return word is not None and (
        word.group(1).islower() or _word(word.group(1), frozenset()) in lex.month_words
    )


_DIGIT_IN_TEXT = re.compile(r"\d")


def find_refusal(lexes: Iterable[Lexicon], text: str) -> tuple[int, int] | None:
    """The first phrase of declining in ``text`` in these languages, or None."""
    low = text.lower()
    found = [m.span() for lex in lexes if (m := lex.refusal.search(low)) is not None]
    found += [
        m.span()
        for lex in lexes
        for needs, phrase in lex.refusal_parts
        if all(n.search(low) for n in needs) and (m := phrase.search(low)) is not None
    ]
    return min(found) if found else None


def find_number_words(lexes: Iterable[Lexicon], text: str, start: int) -> list[tuple[int, int, float]]:
    """Number words of these languages from ``start`` on: ``(start, end, value)``; not those of a
    unit of more than one word (``40 por ciento``, ``pour cent``: no hundred). A number written in
    several words is one (``doscientos cincuenta``, ``vingt-cinq``, ``treinta y cinco``, ``dos
    mil``), and so is one whose words are glued (``fünfundzwanzig``, ``vijfentwintig``,
    ``duecentocinquanta``); ``tres y cuatro``, ``entre veinte y treinta`` are two."""
    low = text.lower()
    units = [m.span() for m in figure_words().unit_phrase.finditer(low)]
    out = []
    for lex in lexes:
        glued, part = _number_parts(tuple(lex.numbers))
        found = [(m.start(), m.end(), lex.numbers[m.group()]) for m in lex.number_word.finditer(low, start)]
        for m in glued.finditer(low, start):
            if not any(s == m.start() and e == m.end() for s, e, _ in found):
                found.append(
                    (m.start(), m.end(), _combined([lex.numbers[p] for p in part.findall(m.group())]))
                )
        # "en quarantaine" is no forty: a number that is also a noun counts after "une" or a number
        found = [w for w in found if low[w[0] : w[1]] not in lex.number_nouns or _counted(lex, low, w[0])]
        found.sort()
        merged: list[tuple[int, int, float]] = []
        for s, e, value in found:
            if merged and merged[-1][1] <= s and _joins(low[merged[-1][1] : s], merged[-1][2], value):
                merged[-1] = (merged[-1][0], e, _combined([merged[-1][2], value]))
            elif not merged or s >= merged[-1][1]:
                merged.append((s, e, value))
        _add_halves(lex, low, start, merged)
        out += [w for w in merged if not any(s <= w[0] < e for s, e in units)]
    return sorted(out)


def _counted(lex: Lexicon, low: str, s: int) -> bool:
    """Whether the word before ``s`` is a word for one or a number: the noun after it is counted."""
    words = low[:s].split()
    return bool(words) and (words[-1] in lex.ones or words[-1] in lex.numbers or words[-1].isdigit())


#: The word right before a half ("metro" in "el metro y medio")
_LAST_WORD = re.compile(r"(?<![\w'])[^\W\d_][\w']*$")


def _add_halves(lex: Lexicon, low: str, start: int, merged: list[tuple[int, int, float]]) -> None:
    """A half after a number word, or after its unit, is half more (``dos y medio``, ``trois
    heures et demie``); after a word for one or a unit alone it is one and a half (``uno e
    mezzo``, ``el metro y medio``, ``a metre and a half``): a figure like the number it writes."""
    fw = figure_words()
    for m in lex.half_after.finditer(low, start):
        at = next((i for i, w in enumerate(merged) if w[1] == m.start()), None)
        if at is not None:
            merged[at] = (merged[at][0], m.end(), merged[at][2] + 0.5)
            continue
        word = _LAST_WORD.search(low, max(start, m.start() - 30), m.start())
        if word is None or not (word.group() in lex.ones or fw.key(word.group()) in fw.units):
            continue
        # a number before the unit: half more of it ("trois heures et demie": 3.5 hours)
        at = next((i for i, w in enumerate(merged) if low[w[1] : word.start()].isspace()), None)
        if at is not None:
            merged[at] = (merged[at][0], merged[at][1], merged[at][2] + 0.5)
        else:
            merged.append((word.start(), m.end(), 1.5))
    merged.sort()


#: Between two number words of one number: a space or hyphen, or "and" between tens and units
_NUMBER_JOIN = re.compile(r"[\s-]+")
_NUMBER_AND = re.compile(r"\s+(?:y|e|et|und|en|and)\s+")


def _place(value: float) -> float:
    """The place of a round number's last non-zero digit (200: 100, 20: 10, 7: 1)."""
    place = 1.0
    while value and value % (place * 10) == 0:
        place *= 10
    return place


def _joins(between: str, first: float, second: float) -> bool:
    """Whether two number words with ``between`` them write one number: a scale after a smaller
    number (``dos mil``), a smaller number after a round one (``doscientos cincuenta``,
    ``vingt-cinq``), units after tens joined by "and" (``treinta y cinco``, ``duzentos e
    cinquenta``)."""
    if _NUMBER_JOIN.fullmatch(between):
        if (second >= 1000 and first < second) or (second == 100 and first < 10):
            return True  # "dos mil", "cinq cents"
        return first > second and first >= 20 and second < _place(first)
    if _NUMBER_AND.fullmatch(between):
        return first >= 20 and second < _place(first)
    return False


def _combined(values: list[float]) -> float:
    """The number several number words write (``[200, 50]``: 250, ``[2, 1000]``: 2000,
    ``[5, 20]``: 25, units before tens as German and Dutch glue them)."""
    total = current = 0.0
    for v in values:
        if v >= 1000:
            total += (current or 1.0) * v
            current = 0.0
        elif v == 100 and 0 < current < 10:
            current *= 100
        else:
            current += v
    return total + current


@cache
def _number_parts(words: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A word glued from a table's number words (``fünf|und|zwanzig``, ``duecento|cinquanta``),
    and one of its parts."""
    alt = _words_alternation(w for w in words if " " not in w)
    glue = r"(?:und|en)?"
    return (
        re.compile(rf"(?<![\w']){alt}(?:{glue}{alt}){{1,3}}(?![\w'])"),
        re.compile(alt),
    )


def find_guessed_verdicts(
    lexes: Iterable[Lexicon], text: str, start: int, exempt: frozenset[str]
) -> list[tuple[int, int]]:
    """Upper-case words right after a guess marker of these languages (``probablement HIGH``)."""
    out = []
    lexes = list(lexes)
    for m in _CAPS.finditer(text, start):
        if m.group().lower() in exempt:
            continue
        before = text[max(start, m.start() - _REACH) : m.start()].lower()
        if any(lex.guess_marker_end.search(before) for lex in lexes):
            out.append(m.span())
    return out


#: "No doubt" in the seven languages: a hedge of certainty, no negation of a claim
_NO_DOUBT = re.compile(
    r"(?i)\b(?:sans\s+(?:aucun\s+)?doute|sin\s+(?:ninguna\s+)?duda|sem\s+(?:nenhuma\s+)?d[u\u00fa]vida|"
    r"senza\s+(?:alcun\s+)?dubbio|ohne\s+(?:jeden\s+)?zweifel|zonder\s+(?:enige\s+)?twijfel|"
    r"without\s+(?:a\s+|any\s+)?doubt|no\s+doubt)\b"
)


def find_claims(lexes: Iterable[Lexicon], text: str) -> list[tuple[int, int, frozenset[str]]]:
    """Claims of agreement in these languages that no negator earlier in their clause undoes:
    ``(start, end, groups)``, the groups by their English names (none: agreement by anyone).

    A predicate of agreement (``sont unanimes``, ``sind sich einig``, ``coinciden en``) is a
    claim by the subject named before it in its clause, or inside it (``darüber sind sich die
    Makler einig``), and an opener (``ne sono convinti tutti``) by the one named after it: the
    subject's words that are no fillers are its groups (a word of ``groups`` by its English name,
    any other as written, a plural ``s`` dropped). No claim when the subject is the speaker
    (``wij zijn het eens``), a document or figure (``les deux rapports concordent``), names no
    one (``ils sont d'accord``), or a negator or a question undoes it. "No doubt" negates nothing
    (``soutiendraient sans doute``, ``sin duda``): it is read as spaces."""
    text = _NO_DOUBT.sub(lambda m: " " * len(m.group()), text)
    low = text.lower()
    out = []
    for lex in lexes:
        for m in _starting(lex.consensus, lex.consensus_starts, low):
            if not lex.claim_negator.search(_clause(lex, text, m.start())):
                words = _LETTERS.findall(m.group())
                # the words a phrase's gap holds: who agrees (``cualquier profesor te diría``),
                # or a negator (``tout le monde ici n'est pas ...``)
                gap = [w for w in words if w not in lex.consensus_words and w not in lex.subject_fillers]
                negators = lex.claim_negator.finditer(low, m.start(), m.end())
                if any(
                    not lex.consensus_words.issuperset(_LETTERS.findall(n.group()))
                    or (
                        lex.claim_negator.match(low, m.start()) is None
                        and _in_gap(lex.consensus, low, m.start(), n)
                    )
                    for n in negators
                ):
                    continue
                groups = {lex.groups[w] for w in words if w in lex.groups}
                groups.update(
                    group_of(lex, w)
                    for w in gap
                    if w not in lex.groups
                    and w not in lex.not_people
                    and w not in lex.first_person
                    and w not in lex.agreement_words
                )
                # a list in its gap names each of its groups (``da sind sich Makler und
                # Compliance einig``)
                groups.update(_listed_groups(lex, m.group(), lex.consensus_words))
                # after it, or after the preposition that ends it (``avis partagé par``)
                after = lex.group_after.match(low, m.end()) or lex.group_after.match(
                    low, low.rfind(" ", m.start(), m.end())
                )
                if after is not None:
                    # (a preposition of several words, ``au sein du``, is no short one of place)
                    several = len(after.group()[: after.start("groups") - after.start()].split()) > 1
                    named = _groups_after(lex, "x " + after.group("groups") if several else after.group())
                    if named:
                        named |= _listed_groups(lex, after.group("groups"))
                    groups.update(named)
                elif words and words[-1] in _ALL_WORDS:
                    # a view shared by all of those right after it ("la linea condivisa da tutti i
                    # distributori", "la posición compartida por todos los operadores")
                    rest = low[m.end() : m.end() + _REACH]
                    stop = lex.clause_break.search(rest)
                    groups.update(_groups_after(lex, "x " + rest[: stop.start() if stop else len(rest)]))
                if not groups:
                    # before it in its clause: "Entre los médicos de familia hay consenso", "Unter
                    # Umweltmedizinern ist das Konsens", "tous les généralistes vous diront la même chose"
                    groups.update(_groups_before(lex, _clause(lex, text, m.start())))
                out.append((m.start(), m.end(), frozenset(groups)))
        for m in _starting(lex.agreement, lex.agreement_starts, low):
            if _negated_after(lex, low, m.end()):
                continue
            start, subject = _subject_before(lex, low, m.start())
            claim = _subject_claim(lex, low, subject + _LETTERS.findall(m.group()), start, m.end())
            if claim is None and _all_of_those_named(lex, low, subject, start, m.end()):
                claim = (start, m.end(), frozenset())
            if claim is not None:
                # a subject that is a list names each of its groups (``Makler und Compliance``)
                # (an "and" the predicate also holds kept between two items: ``sind sich A und
                # B einig``, not ``steht voll und ganz hinter``)
                gap = [
                    w
                    for w in _PHRASE_WORD.findall(m.group())
                    if w not in lex.agreement_words or w in lex.group_and
                ]
                while gap and gap[-1] in lex.group_and:
                    gap.pop()
                listed = _listed_groups(lex, " ".join([low[start : m.start()], *gap]))
                out.append((claim[0], claim[1], claim[2] | listed))
        for m in _starting(lex.body_agreement, lex.agreement_starts, low):
            start, subject = _subject_before(lex, low, m.start())
            # a body's word ends a compound (``Prüfungsausschuss``, ``examencommissie``)
            if any(w.endswith(lex.bodies) for w in subject):
                claim = _subject_claim(lex, low, subject + _LETTERS.findall(m.group()), start, m.end())
                if claim is not None:
                    out.append(claim)
        for m in _starting(lex.agreement_open, lex.agreement_starts, low):
            if lex.claim_negator.search(_clause(lex, text, m.start())):
                continue
            rest = low[m.end() : m.end() + _REACH]
            stop = lex.clause_break.search(rest)
            words = _SUBJECT_WORD.findall(rest[: stop.start() if stop else len(rest)])[:6]
            claim = _subject_claim(lex, low, _LETTERS.findall(m.group()) + words, m.start(), m.end())
            if claim is not None:
                out.append(claim)
    found = _with_inclusions(lexes, low, _with_ranges(lexes, low, _with_both(lexes, low, out)))
    # a compound role read by its field and its head needs both stated (:func:`group_of`)
    return sorted((s, e, frozenset(p for g in gs for p in g.split(ROLE_AND))) for s, e, gs in found)


#: A title's point inside a name (``Dr. Blom``, ``la Dra. Blom``, ``la Dr.ssa Blom``): no clause's end
_TITLE = (
    r"(?:(?<=\bdr)|(?<=\bdra)|(?<=\bdrs)|(?<=\bprof)|(?<=\bmr)|(?<=\bmrs)|(?<=\bms)|(?<=\bsr)|(?<=\bsra)|"
    r"(?<=\bcapt)|(?<=\bmme)|(?<=\bing))\."
)


_NEXT_WORD = re.compile(r"\s+([^\W\d_]+)")


def _negated_after(lex: Lexicon, low: str, end: int) -> bool:
    """Whether a negator follows a predicate of agreement (``steunt de beslissing niet``,
    ``unterstützt die Entscheidung nicht``)."""
    m = _NEXT_WORD.match(low, end)
    return m is not None and lex.claim_negator.fullmatch(m.group(1)) is not None


#: "Both A and B" before a verb of agreeing or of a view they share ("Zowel de installateur als de
#: klant vinden dit een goede oplossing", "Sia l'installatore che il cliente sono d'accordo"): a
#: claim by A and by B, in each language (its words "first", "then", the verbs after the second;
#: English's: :data:`proctor.graders._language._BOTH_VIEW`)
_ITEM = rf"(?P<{{}}>[^\W\d_](?:[^,.;:!?()\n]|{_TITLE}){{{{0,60}}}}?)"
_BOTH_WORDS: dict[str, tuple[str, str, str]] = {
    "nl": (
        r"zowel",
        r"als(?:\s+ook)?",
        r"vinden|vindt|vonden|vond|denken|denkt|dachten|steunen|steunt|steunden|geloven|achten|beschouwen|"
        r"(?:zijn|waren|is)\s+(?:het\s+)?(?:er(?:mee|over)\s+|daarover\s+)?(?:eens|overtuigd|voorstander|tevreden)|"
        r"(?:staan|staat|stonden)\s+(?:(?:er|daar|hier)\s*)?(?:volledig\s+)?achter|gaan\s+akkoord|gingen\s+akkoord",
    ),
    "de": (
        r"sowohl",
        r"als\s+auch",
        r"halten|hielten|finden|fanden|denken|dachten|glauben|unterstützen|befürworten|stimmen|stimmten|"
        r"begrüßen|teilen|sehen\s+(?:das|es|dies)|(?:sind|waren)\s+(?:sich\s+)?(?:einig|überzeugt|einverstanden|"
        r"dafür|zufrieden)|stehen\s+(?:voll\s+)?(?:dahinter|hinter)|tragen",
    ),
    "es": (
        r"tanto",
        r"como",
        r"(?:están|estaban|estuvieron)\s+(?:de\s+acuerdo|convencid[oa]s|conformes|a\s+favor)|coinciden|"
        r"coincidieron|creen|creían|consideran|consideraron|piensan|opinan|apoyan|apoyaron|respaldan|"
        r"respaldaron|ven\s+(?:bien|con\s+buenos\s+ojos)|prefieren|aceptan|aceptaron|aprueban|aprobaron|"
        r"encuentran|comparten|defienden",
    ),
    "pt": (
        r"tanto",
        r"(?:quanto|como)",
        r"concordam|concordaram|acham|acharam|consideram|consideraram|pensam|apoiam|apoiaram|acreditam|"
        r"defendem|preferem|aceitam|aceitaram|aprovam|aprovaram|compartilham|partilham|veem|vêem|"
        r"(?:estão|estavam)\s+(?:de\s+acordo|convencid[oa]s|a\s+favor)",
    ),
    "it": (
        # (not "sia che ... sia che", "whether ... or")
        r"sia(?!\s+che\b)",
        r"(?:che|sia)",
        r"(?:sono|erano|siamo)\s+(?:tutti\s+)?(?:d'accordo|convint[ie]|favorevoli)|concordano|hanno\s+concordato|"
        r"ritengono|pensano|trovano|considerano|sostengono|appoggiano|credono|preferiscono|approvano|"
        r"hanno\s+approvato|hanno\s+appoggiato|hanno\s+sostenuto|hanno\s+condiviso|condividono|vedono|"
        r"ci\s+stanno|ci\s+stavano",
    ),
    "fr": (
        # (not "tant que", "as long as")
        r"(?:à\s+la\s+fois|a\s+la\s+fois|tant(?!\s+que\b)|et)",
        r"(?:et|que)",
        r"(?:sont|étaient|etaient)\s+(?:tous\s+)?(?:d'accord|convaincus|favorables|pour)|pensent|trouvent|"
        r"estiment|considèrent|considerent|soutiennent|approuvent|croient|jugent|préfèrent|preferent|appuient|"
        r"partagent|acceptent|valident|ont\s+(?:accepté|approuvé|validé|accepte|approuve|valide)|"
        r"y\s+(?:souscrivent|adhèrent|adherent|souscrivaient|adhéraient|adheraient)",
    ),
}


@cache
def _both_pattern(language: str) -> re.Pattern[str] | None:
    words = _BOTH_WORDS.get(language)
    if words is None:
        return None
    first, then, verbs = words
    # the rules text may write no accents (``estan de acuerdo``)
    first, then, verbs = (
        _ACCENT_OPTIONAL.sub(lambda m: f"[{m.group()}{_fold(m.group())}]", p) for p in words
    )
    return re.compile(
        rf"(?<![\w'])(?P<first>{first})\s+{_ITEM.format('a')}\s+(?P<then>{then})\s+{_ITEM.format('b')}"
        rf"\s+(?:(?:all|both|also|beide|allebei|ook|auch|beide|todos|ambos|ambas|entrambi|tutti|tous|deux)\s+)?"
        rf"(?:{verbs})(?![\w'])"
    )


_ACCENT_OPTIONAL = re.compile("[\u00e0-\u00ef\u00f2-\u00f6\u00f9-\u00fc]")


#: "A and B <verb> both": the word joining the two, and the words of "both" after them
#: ("De bemanning en de passagiers vinden dit allebei ...", "sont tous les deux d'accord"); a
#: word of "all" only where no noun follows it (``tous les projets`` is no one)
_BOTH_AFTER: dict[str, tuple[str, str]] = {
    "nl": (r"en", r"allebei|alle\s+twee|beiden|allemaal"),
    "de": (r"und", r"beide|alle\s+beide|beide\s+gleichermaßen"),
    "es": (r"y|e", r"ambos|ambas|los\s+dos|las\s+dos|todos(?!\s+(?:los|las|sus|estos|estas)\b)"),
    "pt": (r"e", r"ambos|ambas|os\s+dois|as\s+duas|todos(?!\s+(?:os|as|seus|suas|estes|estas)\b)"),
    "it": (r"e|ed", r"entrambi|entrambe|tutti\s+e\s+due|tutte\s+e\s+due|tutti(?!\s+(?:i|gli|le|questi)\b)"),
    "fr": (
        r"et",
        r"tous\s+les\s+deux|toutes\s+les\s+deux|tous\s+deux|toutes\s+deux|tous(?!\s+(?:les|ces|nos|vos|leurs|des)\b)",
    ),
}


@cache
def _both_after_pattern(language: str) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """ "A and B" before a verb of a view (:data:`_BOTH_WORDS`), read with the words of "both"
    blanked; and those words."""
    words, both = _BOTH_AFTER.get(language, ("", "")), _BOTH_WORDS.get(language)
    if not words[0] or both is None:
        return None
    then, after = words
    # (the rules text may have its accents folded: ``estan``)
    folded = "".join(c for c in unicodedata.normalize("NFKD", both[2]) if not unicodedata.combining(c))
    return (
        re.compile(
            rf"(?:^|(?<=[.;:!?\n,(]))\s*{_ITEM.format('a')}\s+(?P<then>{then})\s+{_ITEM.format('b')}"
            rf"\s+(?:{both[2]}|{folded})(?![\w'])"
        ),
        re.compile(rf"(?<![\w'])(?:{after})(?![\w'])"),
    )


_SENTENCE_MARK = re.compile(r"[.;:!?\n]")
#: How far after a view's verb its word of "both" may stand ("vinden dit allebei")
_BOTH_REACH = 40


def _with_both(
    lexes: Iterable[Lexicon], low: str, claims: list[tuple[int, int, frozenset[str]]]
) -> list[tuple[int, int, frozenset[str]]]:
    """``claims`` with those "both A and B <agree / think / find ...>" makes (a view both
    share: a claim by A and by B), merged with a claim read over the same words (whose subject
    may have lost A at ``che``, or kept the words of "both" as a group)."""
    out = list(claims)
    for lex in lexes:
        pattern = _both_pattern(lex.language)
        if pattern is None:
            continue
        after = _both_after_pattern(lex.language)
        matches = list(pattern.finditer(low))
        if after is not None:
            # "A and B <verb> both": a claim when, "both" read as absent, the verb is one of a
            # view, "both" in its clause right after the two
            both = list(after[1].finditer(low))
            blanked = low
            for w in both:
                blanked = blanked[: w.start()] + " " * (w.end() - w.start()) + blanked[w.end() :]
            matches += [
                m
                for m in after[0].finditer(blanked)
                if any(
                    m.end("b") < w.start() <= m.end() + _BOTH_REACH
                    and not _SENTENCE_MARK.search(low, m.end("b"), w.start())
                    for w in both
                )
            ]
        for m in matches:
            # the words of "both ... and" are no negator nor condition (Dutch ``als``)
            read = low
            for g in ("first", "then"):
                if g in m.re.groupindex:
                    read = read[: m.start(g)] + " " * (m.end(g) - m.start(g)) + read[m.end(g) :]
            words = _SUBJECT_WORD.findall(m.group("a")) + _SUBJECT_WORD.findall(m.group("b"))
            claim = _subject_claim(lex, read, words, m.start(), m.end())
            if claim is None:
                continue
            s, e, groups = claim
            # each of the two is a group named on its own: both need their agreement stated
            for item in ("a", "b"):
                group = named_group(lex, _SUBJECT_WORD.findall(m.group(item)))
                if group is not None:
                    groups |= {group}
            joined = {
                open_group(w, lex.language)
                for g in ("first", "then", "both")
                if g in m.re.groupindex
                for w in _SUBJECT_WORD.findall(m.group(g))
            }
            same = [c for c in out if c[0] < e and s < c[1]]
            for c in same:
                out.remove(c)
                s, e, groups = min(s, c[0]), max(e, c[1]), groups | (c[2] - joined)
            out.append((s, e, frozenset(groups)))
    return out


#: The words of "all" a shared view may end in, its groups right after them
_ALL_WORDS = frozenset(
    {"all", "tous", "toutes", "todos", "todas", "tutti", "tutte", "alle", "allen", "iedereen", "everyone"}
)


def _all_of_those_named(lex: Lexicon, low: str, subject: list[str], start: int, end: int) -> bool:
    """Whether a predicate whose subject names no one but "all" (``Todos están de acuerdo``) is a
    claim: by the groups an inclusion or a range right after it names."""
    if any(w not in lex.subject_fillers for w in subject) or any(w in lex.first_person for w in subject):
        return False
    if lex.claim_negator.search(_clause(lex, low, start)) or lex.claim_negator.search(low, start, end):
        return False
    return bool(lex.inclusion_after.match(low, end) or lex.group_range.match(low, end))


#: Words of "all of it" before a group's word (``toute l'équipe SRE``): no group
_WHOLE = _ALL_WORDS | {"toute", "tout", "toda", "todo", "tutta", "tutto", "ganze", "gesamte", "hele", "whole"}


#: A group named on its own (an end of a range, a group of an inclusion, an item of a list): its
#: agreement must be stated, in any language (:func:`named_group`)
NAMED = "!"
#: The English names of the words for a team or a department: they qualify a group rather than
#: being one (``l'équipe commerciale`` is sales)
COLLECTIVES = frozenset({"team", "department"})


def named_group(lex: Lexicon, words: list[str]) -> str | None:
    """The group a phrase of an inclusion or a range names on its own: its head (in English,
    German and Dutch the last word of its first run of words, elsewhere its first word: ``il
    gestore del rifugio``, ``der Leiter der Bergwacht``), by a table's English name, else marked
    :data:`NAMED` with the forms a document may write it in (``!it:gestori/it:gestore``)."""
    runs: list[list[str]] = [[]]
    # (a compound's parts apart: ``die Compliance-Abteilung`` is compliance's)
    for w in (part for word in words for part in word.split("-") if part):
        if w in lex.not_people or w in lex.inclusion_words or w in lex.agreement_words or w in _WHOLE:
            continue
        if w in lex.subject_fillers and w not in lex.groups:
            if runs[-1]:
                runs.append([])
            continue
        runs[-1].append(w)
    # a team's or a department's word qualifies the group the next words name (``el equipo de
    # cumplimiento``, ``de financiële afdeling``): that group, not any team
    at = next((i for i, r in enumerate(runs) if any(group_of(lex, w) not in COLLECTIVES for w in r)), 0)
    run = [w for w in runs[at] if group_of(lex, w) not in COLLECTIVES] or runs[at]
    if not run:
        return None
    head = run[-1] if lex.language in _COMPOUNDING or lex.language == "en" else run[0]
    group = group_of(lex, head)
    language, _, word = group.partition(":")
    if not word:
        return group
    forms = {f"{language}:{f}" for f in _forms(word, language)}
    # or by another word of its name: a name after a title (``le Dr Okafor``), a word of a name
    # (``facility manager``), what a table translates (``la direction financière``: finance)
    for w in run:
        other = group_of(lex, w)
        if other.startswith(f"{language}:"):
            forms |= {f"{language}:{f}" for f in _forms(other[len(language) + 1 :], language)}
        elif other not in COLLECTIVES:
            forms.add(other)
    # a word no table translates that qualifies a team (``el equipo de planificación``,
    # ``planningsteam``) is named in another language's document by that team
    teams = {group_of(lex, w) for r in runs[: at + 1] for w in r} & COLLECTIVES
    teams |= {
        n for k, n in lex.groups.items() if n in COLLECTIVES and len(word) > len(k) and word.endswith(k)
    }
    return NAMED + "/".join(sorted(forms | teams))


def _forms(word: str, language: str) -> set[str]:
    """A group's word in the forms its number and case may give it (``Bergführern``,
    ``Bergführer``; ``gestori``, ``gestore``; ``guide``, ``guida``)."""
    out = {word}
    if language in _COMPOUNDING and len(word) > 4:
        out |= {word[:-1]} if word.endswith(("n", "e")) else set()
        out |= {word[:-2]} if word.endswith(("en", "er")) and language == "nl" else set()
    if language == "it" and len(word) > 3 and word.endswith(("i", "e")):
        out |= {word[:-1] + end for end in "oea"}
    return out


def _with_inclusions(
    lexes: Iterable[Lexicon], low: str, claims: list[tuple[int, int, frozenset[str]]]
) -> list[tuple[int, int, frozenset[str]]]:
    """``claims``, each with the groups an inclusion right after it or set off inside it names
    (``Sono tutti d'accordo, compreso il gestore del rifugio``: the hut warden agrees too)."""
    out = []
    for s, e, groups in claims:
        for lex in lexes:
            found = [m for m in lex.inclusion_inside.finditer(low, s, e) if m.end() <= e]
            after = lex.inclusion_after.match(low, e)
            if after is not None:
                found.append(after)
            named = set()
            for m in found:
                named |= _inclusion_groups(lex, m.group("np") or m.group("np2"))
            if named:
                groups = groups | named
                e = max(e, after.end()) if after is not None else e
        out.append((s, e, groups))
    return out


def _inclusion_groups(lex: Lexicon, phrase: str) -> set[str]:
    """The groups of an inclusion's phrase: each a group named on its own (:func:`named_group`),
    split at a comma or a word of ``group_and``."""
    out: set[str] = set()
    part: list[str] = []
    words = _PHRASE_WORD.findall(phrase)
    if not words or words[0] in lex.inclusion_stops:
        return out
    for w in [*words, ","]:
        if w == "," or w in lex.group_and:
            group = named_group(lex, part) if part else None
            if group is not None:
                out.add(group)
            part = []
        else:
            part.append(w)
    return out


#: A word of a phrase, or a comma between two of its groups
_PHRASE_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*|,")


def _listed_groups(lex: Lexicon, phrase: str, skip: frozenset[str] = frozenset()) -> set[str]:
    """The groups of a list a claim names (``Makler und Compliance``, ``los agentes de aduanas y
    el equipo de cumplimiento``), the claim's own words (``skip``: ``voll und ganz``) aside: each
    item's group named
    on its own, so each needs its own agreement stated (a word of a single group may only qualify
    it: ``les pharmaciens de réanimation``); none when the phrase joins no two items by a word of
    ``group_and`` (a comma alone sets off a phrase too: ``Côté hôtel, le facility manager``)."""
    items: list[list[str]] = [[]]
    joins: list[str] = []
    for w in _PHRASE_WORD.findall(phrase):
        if w in skip:
            continue  # a word of the claim's own ("voll und ganz")
        if w == "," or w in lex.group_and:
            if items[-1]:
                items.append([])
                joins.append(w)
            elif joins and w in lex.group_and:
                joins[-1] += w  # ", and": one join
            continue
        items[-1].append(w)
    items = [i for i in items if i]
    # an item longer than a group's name before the last one is a clause joined on ("Priya
    # Nair recomienda REFER y el equipo ..."), and so is one item set off by a comma before "and"
    # (``AMBER, et toute l'équipe``): the list starts after it
    for k in range(len(items) - 2, -1, -1):
        if len([w for w in items[k] if w not in lex.subject_fillers]) > _LIST_ITEM or (
            k == 0 and len(items) == 2 and joins[0][:1] == "," and len(joins[0]) > 1
        ):
            items, joins = items[k + 1 :], joins[k + 1 :]
            break
    if len(items) < 2 or not any(j.lstrip(",") in lex.group_and for j in joins):
        return set()
    groups = {g for item in items if (g := named_group(lex, item)) is not None}
    return groups if len(groups) > 1 else set()


def _with_ranges(
    lexes: Iterable[Lexicon], low: str, claims: list[tuple[int, int, frozenset[str]]]
) -> list[tuple[int, int, frozenset[str]]]:
    """``claims``, each with the groups of a range after it (``sono tutti d'accordo, dal TSO al
    regolatore``: the TSO and the regulator agree)."""
    out = []
    for s, e, groups in claims:
        for lex in lexes:
            m = lex.group_range.match(low, e)
            if m is None:
                continue
            words = [w for w in _SUBJECT_WORD.findall(m.group()) if w not in lex.group_range_words]
            named = _groups_after(lex, "from " + " ".join(words))
            # each end a group of its own: "dalle guide al soccorso alpino" needs both stated
            for end in ("first", "last"):
                group = named_group(lex, _SUBJECT_WORD.findall(m.group(end)))
                if group is not None:
                    named.add(group)
            if named:
                s, e, groups = s, m.end(), groups | named
            break
        out.append((s, e, groups))
    return out


def _in_gap(pattern: re.Pattern[str], low: str, start: int, n: re.Match[str]) -> bool:
    """Whether negator ``n`` stands in a phrase's gap, not among its words: the phrase still
    matches with another word in its place (``er is ... geen consensus over``, not ``geen ...
    zou dat betwisten``; a phrase a negator opens carries its own: ``aucun ... ne vous dira``)."""
    other = low[: n.start()] + "x" * (n.end() - n.start()) + low[n.end() :]
    return pattern.match(other, start) is not None


def _starting(pattern: re.Pattern[str], starts: re.Pattern[str], low: str) -> Iterable[re.Match[str]]:
    """The matches of ``pattern`` in ``low``, tried only where one of its first words starts
    (``finditer`` tries every position, and these phrases are many)."""
    end = 0
    for w in starts.finditer(low):
        if w.start() < end:
            continue
        m = pattern.match(low, w.start())
        if m is not None:
            end = m.end()
            yield m


#: Where a sentence ends: a claim in a sentence that ends in ``?`` asks, it does not claim
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)|\n")
#: A comma that ends a short item of a list may stand inside a subject ("Sachbearbeiter,
#: Gutachter und der Makler sind sich einig"): an item of at most this many words
_LIST_ITEM = 3


def _subject_before(lex: Lexicon, low: str, pos: int) -> tuple[int, list[str]]:
    """The words of the subject before ``pos`` (its clause, list items before a comma included,
    from the last ``subject_stops`` word on) and where it starts."""
    start = max(0, pos - _REACH)
    window = low[start:pos]
    marks = [m for m in lex.clause_break.finditer(window) if not _in_figure(low, start + m.start())]
    cut = marks[-1].end() if marks else 0
    i = len(marks) - 1
    while i >= 0 and marks[i].group() == ",":
        # a short item of a list before the comma, itself after a mark or the text's start
        before = marks[i - 1] if i else None
        item_start = before.end() if before else 0
        opened = before.group() in _LIST_MARKS if before else start == 0
        if not (
            opened and 0 < len(_SUBJECT_WORD.findall(window[item_start : marks[i].start()])) <= _LIST_ITEM
        ):
            break
        cut = item_start
        i -= 1
    words = list(_SUBJECT_WORD.finditer(window, cut))
    for j in range(len(words) - 1, -1, -1):
        if words[j].group() in lex.subject_stops:
            words = words[j + 1 :]
            break
    begin = start + (words[0].start() if words else len(window))
    return begin, [w.group() for w in words]


_LIST_MARKS = frozenset((",", ".", ";", ":", "!", "?", "\n"))
#: A word of a subject: letters only (a hyphen may join two: ``compliance-afdeling``), not a
#: piece of a code or figure (``P0``, ``A-2291``)
_SUBJECT_WORD = re.compile(r"(?<![\w-])[^\W\d_]+(?:-[^\W\d_]+)*(?![\w-])")


def _subject_claim(
    lex: Lexicon, low: str, words: list[str], start: int, end: int
) -> tuple[int, int, frozenset[str]] | None:
    """A claim by the subject among ``words`` (with the predicate's), or None when none is."""
    if any(w in lex.first_person for w in words):
        return None
    content = [
        w
        for w in words
        if w not in lex.subject_fillers and w not in lex.agreement_words and w not in lex.month_words
    ]
    if not content or any(w in lex.not_people for w in content):
        return None
    # a negator in the subject or the predicate's gap (the predicate's own words aside: Dutch
    # ``daar is geen discussie over`` is agreement)
    negators = lex.claim_negator.finditer(low, start, end)
    if any(not lex.agreement_words.issuperset(_LETTERS.findall(n.group())) for n in negators):
        return None
    if lex.claim_negator.search(_clause(lex, low, start)):
        return None
    stop = _SENTENCE_END.search(low, end, end + 240)
    if stop is not None and stop.group().startswith("?"):
        return None
    return start, end, frozenset(group_of(lex, w) for w in content)


#: The shortest group word a compound may end in ("Zollmakler", "douanemakelaars")
_COMPOUND_PART = 5


#: Between the field and the head of a compound role (``maintenance&supervisor``): both named
ROLE_AND = "&"
#: The letters that may join a compound's field to its head (``Instandhaltungs-``, ``bruggen-``)
_LINKS = ("", "s", "es", "n", "en", "e", "er")
#: The shortest field a compound role may start with
_FIELD_PART = 3


def compound_role(lex: Lexicon, word: str) -> tuple[str, str | None] | None:
    """A compound role's head's English names and its field's, or None for the field when no
    table reads it (``Instandhaltungsleiter``: ``head/...``, ``maintenance``); None when the word
    ends in no ``role_heads`` word."""
    if lex.language not in _COMPOUNDING:
        return None
    word = word.replace("-", "")
    head = next(
        (h for h in sorted(lex.role_heads, key=len, reverse=True) if word.endswith(h) and len(word) > len(h)),
        None,
    )
    if head is None or len(word) - len(head) < _FIELD_PART:
        return None
    field = word[: -len(head)]
    for link in _LINKS:
        part = field[: len(field) - len(link)] if link else field
        if not field.endswith(link) or len(part) < _FIELD_PART:
            continue
        # (a doubled consonant before the link: ``bruggen-``, ``brug``)
        for p in (part, part[:-1]) if part[-1] == part[-2] else (part,):
            found = lex.role_fields.get(p) or lex.groups.get(p)
            if found is not None:
                return lex.role_heads[head], found
    return lex.role_heads[head], None


def unread_role(group: str) -> tuple[str, str] | None:
    """A group that is a compound role whose field no table reads (``de:schadensleiter``): its
    word and its head's English names (a document may state its agreement under an English
    role), or None."""
    language, _, word = group.removeprefix(NAMED).split("/")[0].partition(":")
    if language not in _COMPOUNDING or not word:
        return None
    role = compound_role(lexicon(language), word)
    return (word, role[0]) if role is not None and role[1] is None else None


def group_of(lex: Lexicon, word: str) -> str:
    """The group a subject's word names: a table's word by its English name, in a language that
    writes compounds as one word a compound ending in one ("Zollmakler": broker) or a role read
    by its field and head (``Instandhaltungsleiter``: ``maintenance&supervisor/...``, both needed),
    else the word itself (:func:`open_group`)."""
    if "-" in word and len(word.rsplit("-", 1)[1]) >= _COMPOUND_PART - 1:
        word = word.rsplit("-", 1)[1]  # "Flaggenstaat-Surveyors": the surveyors
    found = lex.groups.get(word) or lex.role_heads.get(word) or lex.role_fields.get(word)
    if found is None and lex.language in _COMPOUNDING:
        role = compound_role(lex, word)
        if role is not None and role[1] is not None:
            return f"{role[1]}{ROLE_AND}{role[0]}"
    if found is None and lex.language in _COMPOUNDING:
        found = next(
            (
                lex.groups[k]
                for k in sorted(lex.groups, key=len, reverse=True)
                if len(k) >= _COMPOUND_PART and len(word) > len(k) and word.endswith(k)
            ),
            None,
        )
    return found or open_group(word, lex.language)


def _groups_after(lex: Lexicon, words: str) -> set[str]:
    """The groups named after a claim's preposition (``hay consenso entre los mecánicos``,
    ``l'opinione comune tra i broker``): its words up to a ``subject_stops`` word, fillers,
    documents and figures aside."""
    out: set[str] = set()
    read = _SUBJECT_WORD.findall(words)
    # a short preposition, of place or of what agreement is on (``hay consenso en retirarlo``):
    # a group follows it with its article, or is one the tables name (``en el comité``)
    if len(read[0]) <= 2 and len(read) > 1 and read[1] not in lex.subject_fillers | lex.groups.keys():
        return out
    for w in read[1:]:
        if w in lex.subject_stops:
            break
        if w in lex.groups:
            out.add(lex.groups[w])
        elif (
            w not in lex.subject_fillers
            and w not in lex.not_people
            and w not in lex.agreement_words
            and w not in lex.month_words
        ):
            out.add(group_of(lex, w))
    return out


def _groups_before(lex: Lexicon, clause: str) -> set[str]:
    """The groups a claim's clause names before it, after one of the table's group prepositions or
    a word of "all" or "any": up to four words, fillers, documents and figures aside."""
    m = lex.group_before.search(clause)
    if m is None:
        return set()
    out: set[str] = set()
    for w in _SUBJECT_WORD.findall(m.group(1)):
        if w in lex.subject_stops:
            break
        if w in lex.groups:
            out.add(lex.groups[w])
        elif (
            w not in lex.subject_fillers
            and w not in lex.not_people
            and w not in lex.month_words
            and w not in lex.agreement_words
            and w not in lex.consensus_words
            and w not in lex.first_person
        ):
            out.add(group_of(lex, w))
    return out


def open_group(word: str, language: str) -> str:
    """A group's word no table maps, as a claim and a document both read it: its language, a
    colon, the word (a plural ``s`` dropped): ``fr:fraude``. It is compared with the documents
    of its own language only (no table says what ``Sachbearbeiter`` is in English)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return f"{language}:{word}"


@cache
def group_names() -> frozenset[str]:
    """The English names the tables give groups (``mechanic``, ``nurse``...)."""
    return frozenset(name for lang in TABLE_LANGUAGES for name in _table(lang).get("groups", {}).values())
