// English and German labels. The language comes from the switch, else from navigator.language.

const strings = {
  en: {
    title: "Symi flags", language: "Language", signOut: "Sign out", signInTitle: "Sign in",
    signInHelp: "Paste a token from “flagserver token create”. It is kept in this browser tab only.",
    token: "Token", signIn: "Sign in", continueReadOnly: "Continue without a token",
    environment: "Environment", flags: "Flags", evaluate: "What does an install get?", history: "History",
    installId: "Install id", appVersion: "App version", locale: "Locale", country: "Country", channel: "Channel",
    evaluateButton: "Evaluate", flag: "Flag", value: "Value", variant: "Variant", reason: "Reason",
    whatChanges: "What changes", whoIsAffected: "Who is affected", message: "Why (change message)",
    reloadReapply: "Reload and re-apply", preview: "Preview", publish: "Publish", cancel: "Cancel",
    signedInAs: "Signed in as {name} ({role})", readOnly: "read-only", anonymous: "Not signed in (read-only)",
    wrongToken: "This token is unknown or has been revoked. Check it or ask for a new one.",
    emptyToken: "Paste a token first.", unreachable: "The server cannot be reached.",
    readsNeedToken: "This server needs a token even for reading. Sign in with a reader or writer token.",
    forbidden: "This token may not do that ({message}).",
    version: "version {version}", noVersion: "nothing published yet",
    type: "Type", description: "Description", defaultValue: "Default", rules: "Rules", requires: "Requires",
    noRules: "no rules: everyone gets the default", cohort: "cohort {cohort}", everyone: "everyone",
    rollout: "{rollout}% of them", change: "Change…", turnOn: "Turn on…", turnOff: "Turn off…",
    changeTitle: "Change {key} in {environment}", newValue: "New value", dropRules: "Drop the rules: this value for everyone",
    editDefinition: "Edit the whole definition (JSON)", definition: "Definition (JSON)",
    notJSON: "Not valid JSON: {message}", noChange: "This changes nothing.",
    impactShare: "of sampled installs see a different value", impactNone: "No sampled install sees a different value.",
    sampled: "Sample: {count} generated installs (seed {seed}), as flagctl diff --impact.",
    messageRequired: "Every change needs a message.", published: "Published version {version}.",
    unchanged: "Nothing changed: the content was already current.",
    conflict: "Someone published version {version} meanwhile. Reload it and apply your change again, then review the diff.",
    at: "at {path}", author: "by {author}", rolledBackFrom: "rollback to version {version}",
    showDiff: "Show diff", hideDiff: "Hide diff", rollbackTo: "Roll back to this…",
    rollbackTitle: "Roll back {environment} to version {version}", current: "current",
    loading: "Loading…", signInForDiffs: "Sign in to see the diff.", noFlags: "No flags in this document.",
  },
  de: {
    title: "Symi Flags", language: "Sprache", signOut: "Abmelden", signInTitle: "Anmelden",
    signInHelp: "Füge ein Token aus „flagserver token create“ ein. Es bleibt nur in diesem Browser-Tab.",
    token: "Token", signIn: "Anmelden", continueReadOnly: "Ohne Token weiter",
    environment: "Umgebung", flags: "Flags", evaluate: "Was bekommt eine Installation?", history: "Verlauf",
    installId: "Installations-ID", appVersion: "App-Version", locale: "Locale", country: "Land", channel: "Kanal",
    evaluateButton: "Auswerten", flag: "Flag", value: "Wert", variant: "Variante", reason: "Grund",
    whatChanges: "Was sich ändert", whoIsAffected: "Wen es betrifft", message: "Warum (Änderungsnachricht)",
    reloadReapply: "Neu laden und erneut anwenden", preview: "Vorschau", publish: "Veröffentlichen", cancel: "Abbrechen",
    signedInAs: "Angemeldet als {name} ({role})", readOnly: "nur lesen", anonymous: "Nicht angemeldet (nur lesen)",
    wrongToken: "Dieses Token ist unbekannt oder wurde widerrufen. Prüfe es oder lass dir ein neues geben.",
    emptyToken: "Füge zuerst ein Token ein.", unreachable: "Der Server ist nicht erreichbar.",
    readsNeedToken: "Dieser Server verlangt auch zum Lesen ein Token. Melde dich mit einem Leser- oder Schreiber-Token an.",
    forbidden: "Dieses Token darf das nicht ({message}).",
    version: "Version {version}", noVersion: "noch nichts veröffentlicht",
    type: "Typ", description: "Beschreibung", defaultValue: "Standard", rules: "Regeln", requires: "Setzt voraus",
    noRules: "keine Regeln: alle bekommen den Standardwert", cohort: "Kohorte {cohort}", everyone: "alle",
    rollout: "{rollout} % davon", change: "Ändern…", turnOn: "Einschalten…", turnOff: "Ausschalten…",
    changeTitle: "{key} in {environment} ändern", newValue: "Neuer Wert", dropRules: "Regeln entfernen: dieser Wert für alle",
    editDefinition: "Ganze Definition bearbeiten (JSON)", definition: "Definition (JSON)",
    notJSON: "Kein gültiges JSON: {message}", noChange: "Das ändert nichts.",
    impactShare: "der Installationen der Stichprobe sehen einen anderen Wert", impactNone: "Keine Installation der Stichprobe sieht einen anderen Wert.",
    sampled: "Stichprobe: {count} erzeugte Installationen (Seed {seed}), wie flagctl diff --impact.",
    messageRequired: "Jede Änderung braucht eine Nachricht.", published: "Version {version} veröffentlicht.",
    unchanged: "Nichts geändert: der Inhalt war schon aktuell.",
    conflict: "Inzwischen wurde Version {version} veröffentlicht. Lade sie neu, wende deine Änderung erneut an und prüfe den Diff.",
    at: "bei {path}", author: "von {author}", rolledBackFrom: "Rücknahme auf Version {version}",
    showDiff: "Diff zeigen", hideDiff: "Diff verbergen", rollbackTo: "Hierauf zurücksetzen…",
    rollbackTitle: "{environment} auf Version {version} zurücksetzen", current: "aktuell",
    loading: "Lädt…", signInForDiffs: "Melde dich an, um den Diff zu sehen.", noFlags: "Keine Flags in diesem Dokument.",
  },
};

let language = "en";

/** The language to start with: a German browser gets German, every other one English. */
export function initialLanguage(stored) {
  if (stored && strings[stored]) return stored;
  return (navigator.language || "en").toLowerCase().startsWith("de") ? "de" : "en";
}

export function setLanguage(code) {
  language = strings[code] ? code : "en";
  document.documentElement.lang = language;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
}

export function currentLanguage() {
  return language;
}

/** The label `key` in the current language with {placeholders} filled in (as text). */
export function t(key, values = {}) {
  const template = strings[language][key] ?? strings.en[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (_, name) => (name in values ? String(values[name]) : `{${name}}`));
}

/** 100000 as "100,000" or "100.000". */
export function number(value) {
  return new Intl.NumberFormat(language === "de" ? "de-DE" : "en-US").format(value);
}

/** A share 0...1 as "12.4 %" style text; a tiny non-zero share is "<0.1%", never "0.0%". */
export function percent(share) {
  if (share > 0 && share < 0.0005) return language === "de" ? "<0,1 %" : "<0.1%";
  const text = new Intl.NumberFormat(language === "de" ? "de-DE" : "en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 })
    .format(share * 100);
  return language === "de" ? `${text} %` : `${text}%`;
}

/** An RFC 3339 time in the reader's locale. */
export function time(text) {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toLocaleString(language === "de" ? "de-DE" : "en-GB");
}
