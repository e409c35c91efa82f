/** The write half of parquet-stream (the streaming writer lands here). */
export {};
