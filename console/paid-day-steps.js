// The paid day's steps, in order: docs/monetization.md's runbook "switching to paid" as data, so the guided
// view follows the runbook by editing this list (no view code). Each step is either
//   {kind: "manual", ...}: done outside the console (App Store Connect); shown with its instructions; or
//   {kind: "flag", flag, ...} with one of
//     value: V        a bare value, as `flagctl set ENV FLAG V` and PUT .../flags/{key} with V: this value for
//                     everyone (the flag's rules are dropped, type, description, requires and salt kept);
//     set: {...}      members replaced in the flag's current definition (rules and requires kept);
//     addRules: [...] rules put first in the flag's rules unless an equal rule is there (e.g. a cohort's rule);
//   and `message`: the change message the runbook gives (the person may edit it; a blank one is refused).
// Titles and texts are [English, German]. Whether a step needs a second person comes from the environment's
// policy (protected flags), never from this list.
export const paidDaySteps = [
  {
    id: "app-store",
    kind: "manual",
    title: ["App Store Connect: price and introductory offer", "App Store Connect: Preis und Einführungsangebot"],
    text: [
      "Set the price in App Store Connect (never in a flag) and end or change the free introductory offer. Mirror it in storekit/Symi.storekit and run flagctl storekit check: it lists copy that still promises “free”.",
      "Preis in App Store Connect setzen (nie in einem Flag) und das kostenlose Einführungsangebot beenden oder ändern. In storekit/Symi.storekit nachziehen und flagctl storekit check ausführen: es listet Texte, die noch „kostenlos“ versprechen.",
    ],
  },
  {
    id: "free-period-over",
    kind: "flag",
    flag: "showIntroFreeSubscriptionBanner",
    value: false,
    message: "free introductory period is over",
    title: ["The free period is over: hide the start-screen card", "Die Gratiszeit ist vorbei: Karte auf dem Startbildschirm ausblenden"],
    text: ["No install sees the “free for a short time” card any more.", "Keine Installation sieht mehr die Karte „für kurze Zeit kostenlos“."],
  },
  {
    id: "announce",
    kind: "flag",
    flag: "subscriptionPriceIncreaseMessagingEnabled",
    value: true,
    message: "announce the price change",
    title: ["Announce the price change", "Preisänderung ankündigen"],
    text: [
      "Shows subscriptionPaidCopy.priceChangeNotice some time before the lock. Apple's rules for telling existing subscribers apply on top.",
      "Zeigt subscriptionPaidCopy.priceChangeNotice einige Zeit vor der Sperre. Apples Regeln zur Information bestehender Abonnenten gelten zusätzlich.",
    ],
  },
  {
    id: "lock",
    kind: "flag",
    flag: "premiumFeaturesLocked",
    set: { default: true },
    message: "Symi Plus: premium features need a subscription",
    title: ["Lock the premium features", "Premium-Funktionen sperren"],
    text: [
      "premiumFeaturesLocked becomes true for everyone; its rules and its requirement monetizationEnabled = true are kept.",
      "premiumFeaturesLocked wird für alle true; seine Regeln und die Voraussetzung monetizationEnabled = true bleiben.",
    ],
  },
  {
    id: "roll-back",
    kind: "manual",
    title: ["If anything goes wrong: roll back", "Falls etwas schiefgeht: zurücksetzen"],
    text: [
      "In History, roll back to the version before the lock (published as a new version). Turning monetizationEnabled off also unlocks everything.",
      "Im Verlauf auf die Version vor der Sperre zurücksetzen (als neue Version veröffentlicht). monetizationEnabled auszuschalten entsperrt ebenfalls alles.",
    ],
  },
];
