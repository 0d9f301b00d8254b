// English and German labels. The language comes from the switch, else from navigator.language.
import { opsLabels } from "./labels-ops.js";
import { outcomesLabels } from "./labels-outcomes.js";
import { experimentsLabels } from "./labels-experiments.js";
import { guardsLabels } from "./labels-guards.js";

// Each label as [English, German], side by side so a missing translation shows in review.
const labels = {
  title: ["Symi flags", "Symi Flags"],
  language: ["Language", "Sprache"],
  signOut: ["Sign out", "Abmelden"],
  signInTitle: ["Sign in", "Anmelden"],
  signInHelp: ["Paste a token from “flagserver token create”. It is kept in this browser tab only.", "Füge ein Token aus „flagserver token create“ ein. Es bleibt nur in diesem Browser-Tab."],
  token: ["Token", "Token"],
  signIn: ["Sign in", "Anmelden"],
  continueReadOnly: ["Continue without a token", "Ohne Token weiter"],
  environment: ["Environment", "Umgebung"],
  flags: ["Flags", "Flags"],
  evaluate: ["What does an install get?", "Was bekommt eine Installation?"],
  history: ["History", "Verlauf"],
  installId: ["Install id", "Installations-ID"],
  appVersion: ["App version", "App-Version"],
  locale: ["Locale", "Locale"],
  country: ["Country", "Land"],
  channel: ["Channel", "Kanal"],
  firstInstallDate: ["First install date", "Erstinstallation"],
  firstInstallDateHint: ["RFC 3339 with Z or an offset. Empty: unknown, as in an app that could not verify its App Store transaction.",
    "RFC 3339 mit Z oder Zeitzonen-Versatz. Leer: unbekannt, wie in einer App, die ihre App-Store-Transaktion nicht prüfen konnte."],
  evaluateButton: ["Evaluate", "Auswerten"],
  flag: ["Flag", "Flag"],
  value: ["Value", "Wert"],
  variant: ["Variant", "Variante"],
  reason: ["Reason", "Grund"],
  whatChanges: ["What changes", "Was sich ändert"],
  whoIsAffected: ["Who is affected", "Wen es betrifft"],
  message: ["Why (change message)", "Warum (Änderungsnachricht)"],
  reloadReapply: ["Reload and re-apply", "Neu laden und erneut anwenden"],
  preview: ["Preview", "Vorschau"],
  publish: ["Publish", "Veröffentlichen"],
  cancel: ["Cancel", "Abbrechen"],
  signedInAs: ["Signed in as {name} ({role})", "Angemeldet als {name} ({role})"],
  readOnly: ["read-only", "nur lesen"],
  anonymous: ["Not signed in (read-only)", "Nicht angemeldet (nur lesen)"],
  wrongToken: ["This token is unknown or has been revoked. Check it or ask for a new one.", "Dieses Token ist unbekannt oder wurde widerrufen. Prüfe es oder lass dir ein neues geben."],
  emptyToken: ["Paste a token first.", "Füge zuerst ein Token ein."],
  unreachable: ["The server cannot be reached.", "Der Server ist nicht erreichbar."],
  readsNeedToken: ["This server needs a token even for reading. Sign in with a reader or writer token.", "Dieser Server verlangt auch zum Lesen ein Token. Melde dich mit einem Leser- oder Schreiber-Token an."],
  forbidden: ["This token may not do that ({message}).", "Dieses Token darf das nicht ({message})."],
  version: ["version {version}", "Version {version}"],
  noVersion: ["nothing published yet", "noch nichts veröffentlicht"],
  type: ["Type", "Typ"],
  description: ["Description", "Beschreibung"],
  defaultValue: ["Default", "Standard"],
  rules: ["Rules", "Regeln"],
  requires: ["Requires", "Setzt voraus"],
  noRules: ["no rules: everyone gets the default", "keine Regeln: alle bekommen den Standardwert"],
  cohort: ["cohort {cohort}", "Kohorte {cohort}"],
  everyone: ["everyone", "alle"],
  rollout: ["{rollout}% of them", "{rollout} % davon"],
  change: ["Change…", "Ändern…"],
  turnOn: ["Turn on…", "Einschalten…"],
  turnOff: ["Turn off…", "Ausschalten…"],
  changeTitle: ["Change {key} in {environment}", "{key} in {environment} ändern"],
  newValue: ["New value", "Neuer Wert"],
  dropRules: ["Drop the rules: this value for everyone", "Regeln entfernen: dieser Wert für alle"],
  editDefinition: ["Edit the whole definition (JSON)", "Ganze Definition bearbeiten (JSON)"],
  definition: ["Definition (JSON)", "Definition (JSON)"],
  notJSON: ["Not valid JSON: {message}", "Kein gültiges JSON: {message}"],
  noChange: ["This changes nothing.", "Das ändert nichts."],
  impactShare: ["of sampled installs see a different value", "der Installationen der Stichprobe sehen einen anderen Wert"],
  impactNone: ["No sampled install sees a different value.", "Keine Installation der Stichprobe sieht einen anderen Wert."],
  sampled: ["Sample: {count} generated installs (seed {seed}), as flagctl diff --impact.", "Stichprobe: {count} erzeugte Installationen (Seed {seed}), wie flagctl diff --impact."],
  messageRequired: ["Every change needs a message.", "Jede Änderung braucht eine Nachricht."],
  published: ["Published version {version}.", "Version {version} veröffentlicht."],
  unchanged: ["Nothing changed: the content was already current.", "Nichts geändert: der Inhalt war schon aktuell."],
  conflict: ["Someone published version {version} meanwhile. Reload it and apply your change again, then review the diff.", "Inzwischen wurde Version {version} veröffentlicht. Lade sie neu, wende deine Änderung erneut an und prüfe den Diff."],
  at: ["at {path}", "bei {path}"],
  author: ["by {author}", "von {author}"],
  rolledBackFrom: ["rollback to version {version}", "Rücknahme auf Version {version}"],
  showDiff: ["Show diff", "Diff zeigen"],
  hideDiff: ["Hide diff", "Diff verbergen"],
  rollbackTo: ["Roll back to this…", "Hierauf zurücksetzen…"],
  rollbackTitle: ["Roll back {environment} to version {version}", "{environment} auf Version {version} zurücksetzen"],
  current: ["current", "aktuell"],
  loading: ["Loading…", "Lädt…"],
  signInForDiffs: ["Sign in to see the diff.", "Melde dich an, um den Diff zu sehen."],
  noFlags: ["No flags in this document.", "Keine Flags in diesem Dokument."],
  changes: ["Waiting changes", "Wartende Änderungen"],
  requested: ["Nothing published yet: change request {id} waits for a second person's approval (protected: {flags}).", "Noch nichts veröffentlicht: Änderungsanfrage {id} wartet auf die Freigabe einer zweiten Person (geschützt: {flags})."],
  nothingWaits: ["Nothing waits for an approval or for its time.", "Nichts wartet auf eine Freigabe oder auf seinen Zeitpunkt."],
  changeRequest: ["Change request {id}", "Änderungsanfrage {id}"],
  scheduledChange: ["Scheduled change {id}", "Geplante Änderung {id}"],
  dueAt: ["due {time}", "fällig {time}"],
  expiresAt: ["expires {time}", "läuft ab {time}"],
  touches: ["Touches {flags}.", "Betrifft {flags}."],
  protectedFlags: ["Protected: {flags}.", "Geschützt: {flags}."],
  ownRequest: ["Your own request: another person must approve it.", "Deine eigene Anfrage: eine andere Person muss sie freigeben."],
  approve: ["Approve", "Freigeben"],
  reject: ["Reject", "Ablehnen"],
  withdraw: ["Withdraw", "Zurückziehen"],
  cancelChange: ["Cancel the schedule", "Planung abbrechen"],
  decisionNote: ["Note (required to reject)", "Notiz (zum Ablehnen nötig)"],
  cancelNote: ["Why (optional)", "Warum (optional)"],
  noteRequired: ["Say why you reject it.", "Sag, warum du sie ablehnst."],
  approvedWaits: ["Change {id} approved; it is {status}.", "Änderung {id} freigegeben; sie ist {status}."],
  rejected: ["Change request {id} rejected.", "Änderungsanfrage {id} abgelehnt."],
  withdrawn: ["Change {id} cancelled.", "Änderung {id} abgebrochen."],
};
Object.assign(labels, opsLabels, outcomesLabels, experimentsLabels, guardsLabels);
const languages = ["en", "de"];

let language = "en";

/** The language to start with: a German browser gets German, every other one English. */
export function initialLanguage(stored) {
  if (stored && languages.includes(stored)) return stored;
  return (navigator.language || "en").toLowerCase().startsWith("de") ? "de" : "en";
}

export function setLanguage(code) {
  language = languages.includes(code) ? code : "en";
  document.documentElement.lang = language;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
}

export function currentLanguage() {
  return language;
}

/** The label `key` in the current language with {placeholders} filled in (as text). */
export function t(key, values = {}) {
  const entry = labels[key];
  const template = entry ? entry[languages.indexOf(language)] ?? entry[0] : key;
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
