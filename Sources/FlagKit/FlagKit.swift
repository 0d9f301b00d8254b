/// FlagKit: the flag document model, decoding, validation, evaluation, diff and canonical JSON.
public enum FlagKit {}
