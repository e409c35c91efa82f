/** Add-action statistics derived from a written file's Parquet footer, equal to delta-rs's (lands here). */
export {};
