//! A writer stream encoded into local files written in place: the native engine's counterpart of the encoder
//! worker's stream (parquet-stream `encoder-worker.ts`) for a store with local targets, with the same file and
//! row-group rules, so both write the same bytes. JavaScript pushes inputs (`push`: Arrow IPC streams, Parquet
//! files to pass through) and runs the stream (`run`, a task on the addon's CPU threads, `cpu_pool.rs`) until
//! its queue is empty, it needs the path of a new file (`fileStart`; `setTarget` names it), the file is full,
//! or the stream has ended; `finishFile` (a libuv pool task: it waits on the disk) writes the file's footer
//! and syncs it to disk. No thread of its own and no JavaScript per batch: the partitions of an upsert encode
//! side by side (merge-engine BENCHMARKS.md, sessions 24 and 26).
//!
//! The rules, as the worker's: a file closes before the next batch once it holds rows and its flushed bytes
//! reach `targetFileSize`; no batch straddles a `maxRowGroupRows` boundary; with `judge`, the dictionary
//! policy is judged once, on the sample of the stream's first input when that is a passed-through file
//! (`FileCursor::sample_first`: from the batches the stream decodes anyway where they tile it, else
//! `stream_input::file_sample`), and every file of the stream is written by that judgement.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use arrow_array::RecordBatch;
use arrow_ipc::reader::StreamReader;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

use crate::batch::failure;
use crate::dictionary_policy::{plain_columns, Thresholds};
use crate::stream_input::{decode_ipc, FileCursor, FileInput, FileSource, Input};
use crate::write::{pass_on_flushed, properties, sync_file, NativeWriterProperties, Output};

/// The dictionary policy's judgement asked of the stream (parquet-stream `EncoderSettings.judge`).
#[napi(object)]
pub struct StreamJudge {
    pub fields: Vec<String>,
    pub batch_rows: u32,
    pub sample_rows: u32,
    pub max_share: f64,
    pub min_values: u32,
    pub dictionary_limit: f64,
}

/// A stream's file rules.
#[napi(object)]
pub struct StreamSettings {
    pub target_file_size: f64,
    pub max_row_group_rows: u32,
    pub judge: Option<StreamJudge>,
}

/// A Parquet file to pass through from `path` (`size` bytes long) or `bytes`, its `rowGroups` decoded in batches
/// of `batchRows`, less the file rows `skipRows` (ascending). (An Arrow IPC stream goes in by `pushIpc`.)
#[napi(object)]
pub struct StreamInput {
    pub path: Option<String>,
    pub size: Option<f64>,
    pub bytes: Option<Uint8Array>,
    pub row_groups: Option<Vec<u32>>,
    pub batch_rows: Option<u32>,
    pub skip_rows: Option<Int32Array>,
}

/// What a `run` stopped at, and how many queued inputs it consumed (`taken`).
#[napi(object)]
pub struct StreamRun {
    /// "drained" (the queue is empty), "fileStart" (a batch waits for a new file: `setTarget`), "full" (the
    /// file is complete at a batch boundary: `finishFile`), or "ended" (nothing left after `end`).
    pub state: String,
    pub taken: u32,
}

/// A file finished: its size, its footer with the 8-byte trailer, its rows.
#[napi(object)]
pub struct StreamFile {
    pub size: f64,
    pub footer: Buffer,
    pub num_rows: f64,
}

/// The inputs JavaScript pushed and the pool has not yet taken, and whether the stream has ended.
#[derive(Default)]
struct Queue {
    inputs: VecDeque<Input>,
    ended: bool,
}

/// The file being written.
struct OpenFile {
    writer: ArrowWriter<Output>,
    rows: usize,
}

/// A stream's encoding state, used by one pool task at a time.
struct Work {
    schema: SchemaRef,
    target_file_size: usize,
    max_row_group_rows: usize,
    /// The writer properties asked for, until the first file is opened (judged then, when asked).
    asked: Option<NativeWriterProperties>,
    judge: Option<StreamJudge>,
    properties: Option<WriterProperties>,
    carry: VecDeque<RecordBatch>,
    cursor: Option<FileCursor>,
    file: Option<OpenFile>,
    /// The path of the next file, once named (`setTarget`).
    target: Option<String>,
    taken: u32,
}

struct Shared {
    queue: Mutex<Queue>,
    work: Mutex<Work>,
    aborted: AtomicBool,
}

fn lock<T>(mutex: &Mutex<T>) -> Result<MutexGuard<'_, T>> {
    mutex.lock().map_err(|_| Error::from_reason("a writer stream's task failed while holding it"))
}

pub enum Stop {
    Drained,
    FileStart,
    Full,
    Ended,
}

impl Work {
    /// The next batch to encode: carried over, else decoded from the queue's inputs; none once the queue is
    /// empty (`ended` then says whether the stream has ended).
    fn next_batch(&mut self, queue: &Mutex<Queue>, ended: &mut bool) -> Result<Option<RecordBatch>> {
        loop {
            if let Some(batch) = self.carry.pop_front() {
                return Ok(Some(batch));
            }
            if let Some(cursor) = self.cursor.as_mut() {
                if !cursor.decode_next(&self.schema, &mut self.carry)? {
                    self.cursor = None;
                    self.taken += 1;
                }
                continue;
            }
            let input = {
                let mut queue = lock(queue)?;
                *ended = queue.ended;
                queue.inputs.pop_front()
            };
            let Some(input) = input else { return Ok(None) };
            match input {
                Input::Ipc(ipc) => {
                    self.judge_first(None)?;
                    decode_ipc(ipc, &mut self.carry)?;
                    self.taken += 1;
                }
                Input::File(file) => {
                    let cursor = self.open_judged(file)?;
                    self.cursor = Some(cursor);
                }
            }
        }
    }

    /// Before the stream's first input is decoded: the writer properties, with the dictionary policy judged on
    /// `sample` (a passed-through first input's) when asked.
    fn judge_first(&mut self, sample: Option<RecordBatch>) -> Result<()> {
        let Some(mut asked) = self.asked.take() else { return Ok(()) };
        if let (Some(judge), Some(sample)) = (self.judge.take(), sample) {
            let thresholds = Thresholds {
                sample_rows: f64::from(judge.sample_rows),
                max_share: judge.max_share,
                min_values: judge.min_values,
                dictionary_limit: judge.dictionary_limit,
            };
            let judged = plain_columns(&sample, &judge.fields, &thresholds);
            asked.plain_columns = Some(judged);
        }
        self.properties = Some(properties(asked)?);
        Ok(())
    }

    /// A passed-through file's cursor; when it is the stream's first input and the policy is asked, the policy
    /// judged first on its sample: joined from the cursor's own batches where they tile it, else decoded apart
    /// (`FileCursor::sample_first`).
    fn open_judged(&mut self, file: FileInput) -> Result<FileCursor> {
        if self.asked.is_none() {
            return FileCursor::open(file);
        }
        let mut cursor = FileCursor::open(file)?;
        let sample_rows = self.judge.as_ref().map(|judge| judge.batch_rows);
        let sample = match sample_rows {
            Some(batch_rows) => cursor.sample_first(batch_rows, &self.schema, &mut self.carry)?,
            None => None,
        };
        self.judge_first(sample)?;
        Ok(cursor)
    }

    /// Encodes until the queue is empty, a batch waits for a file, the file is full, or the stream has ended.
    fn run(&mut self, shared: &Shared) -> Result<Stop> {
        loop {
            if shared.aborted.load(Ordering::Relaxed) {
                return Err(Error::from_reason("stream aborted"));
            }
            if let Some(file) = &self.file {
                if file.rows > 0 && file.writer.bytes_written() >= self.target_file_size {
                    return Ok(Stop::Full);
                }
            }
            let mut ended = false;
            let Some(batch) = self.next_batch(&shared.queue, &mut ended)? else {
                return Ok(if ended { Stop::Ended } else { Stop::Drained });
            };
            if self.file.is_none() && !self.open_file(&batch)? {
                self.carry.push_front(batch);
                return Ok(Stop::FileStart);
            }
            self.write(batch)?;
        }
    }

    /// Opens the next file for `batch` (its schema) at the path named for it; false while none is named.
    fn open_file(&mut self, batch: &RecordBatch) -> Result<bool> {
        let Some(path) = self.target.take() else { return Ok(false) };
        let properties = self.properties.clone().ok_or_else(|| Error::from_reason("no writer properties"))?;
        let output = Output::in_place(&path)?;
        let writer = ArrowWriter::try_new(output, batch.schema(), Some(properties)).map_err(failure)?;
        self.file = Some(OpenFile { writer, rows: 0 });
        Ok(true)
    }

    /// Writes `batch` into the open file, cut at the next `maxRowGroupRows` boundary (the rest carried over).
    fn write(&mut self, batch: RecordBatch) -> Result<()> {
        let file = self.file.as_mut().ok_or_else(|| Error::from_reason("no file open"))?;
        let room = self.max_row_group_rows - file.rows % self.max_row_group_rows;
        let batch = if batch.num_rows() > room {
            self.carry.push_front(batch.slice(room, batch.num_rows() - room));
            batch.slice(0, room)
        } else {
            batch
        };
        let known = file.writer.flushed_row_groups().len();
        file.rows += batch.num_rows();
        file.writer.write(&batch).map_err(failure)?;
        if file.writer.flushed_row_groups().len() != known {
            pass_on_flushed(&mut file.writer)?;
        }
        Ok(())
    }

    /// Drops everything held: the open file's writer, decoded batches, the file being read.
    fn clear(&mut self) {
        self.file = None;
        self.carry.clear();
        self.cursor = None;
    }
}

/// `NativeWriterStream::run` on the pool.
pub struct RunStream {
    shared: Arc<Shared>,
}

impl Task for RunStream {
    type Output = (Stop, u32);
    type JsValue = StreamRun;

    fn compute(&mut self) -> Result<Self::Output> {
        let mut work = lock(&self.shared.work)?;
        let stop = work.run(&self.shared);
        if stop.is_err() {
            work.clear();
        }
        let taken = std::mem::take(&mut work.taken);
        Ok((stop?, taken))
    }

    fn resolve(&mut self, _env: Env, (stop, taken): Self::Output) -> Result<Self::JsValue> {
        let state = match stop {
            Stop::Drained => "drained",
            Stop::FileStart => "fileStart",
            Stop::Full => "full",
            Stop::Ended => "ended",
        };
        Ok(StreamRun { state: state.to_string(), taken })
    }
}

/// `NativeWriterStream::finish_file` on the pool.
pub struct FinishFile {
    shared: Arc<Shared>,
}

impl Task for FinishFile {
    type Output = (u64, Vec<u8>, usize);
    type JsValue = StreamFile;

    fn compute(&mut self) -> Result<Self::Output> {
        let file = lock(&self.shared.work)?.file.take().ok_or_else(|| Error::from_reason("no file open"))?;
        let (written, size, footer) = file.writer.into_inner().map_err(failure)?.completed_in_place()?;
        sync_file(&written)?;
        Ok((size, footer, file.rows))
    }

    fn resolve(&mut self, _env: Env, (size, footer, rows): Self::Output) -> Result<Self::JsValue> {
        Ok(StreamFile { size: size as f64, footer: footer.into(), num_rows: rows as f64 })
    }
}

/// `NativeWriterStream::push_ipc` on libuv's pool: the caller's parts joined into one IPC stream, queued.
pub struct PushIpc {
    shared: Arc<Shared>,
    parts: Vec<Uint8Array>,
    offsets: Vec<usize>,
    total: usize,
}

impl Task for PushIpc {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> Result<Self::Output> {
        let mut stream = vec![0u8; self.total];
        for (part, &offset) in self.parts.iter().zip(&self.offsets) {
            let bytes: &[u8] = part;
            let end = offset.checked_add(bytes.len()).filter(|&end| end <= self.total);
            let end = end.ok_or_else(|| Error::from_reason("pushIpc: a part ends past the stream's length"))?;
            stream[offset..end].copy_from_slice(bytes);
        }
        if !self.shared.aborted.load(Ordering::Relaxed) {
            lock(&self.shared.queue)?.inputs.push_back(Input::Ipc(stream));
        }
        Ok(())
    }

    fn resolve(&mut self, _env: Env, _output: Self::Output) -> Result<Self::JsValue> {
        Ok(())
    }
}

/// One writer stream (see the module's comment). `run` and `finishFile` must not overlap; `push` and `end`
/// may be called at any time.
#[napi]
pub struct NativeWriterStream {
    shared: Arc<Shared>,
}

fn input_of(given: StreamInput) -> Result<Input> {
    let source = match (given.path, given.bytes) {
        (Some(path), _) => FileSource::Path { path, size: given.size.unwrap_or(-1.0) },
        (None, Some(bytes)) => FileSource::Bytes(Bytes::from(bytes.to_vec())),
        (None, None) => return Err(Error::from_reason("a writer stream's file has neither a path nor bytes")),
    };
    Ok(Input::File(FileInput {
        source,
        row_groups: given.row_groups.unwrap_or_default(),
        batch_rows: given.batch_rows.unwrap_or(1024).max(1),
        skip: given.skip_rows.map(|rows| rows.to_vec()).unwrap_or_default(),
    }))
}

#[napi]
impl NativeWriterStream {
    /// A stream writing `schema_ipc`'s schema (an IPC stream of it: passed-through files' batches are
    /// relabelled with it) with writer properties `props`, by `settings`.
    #[napi(constructor, catch_unwind)]
    pub fn new(schema_ipc: Uint8Array, props: NativeWriterProperties, settings: StreamSettings) -> Result<Self> {
        let schema = StreamReader::try_new(std::io::Cursor::new(&schema_ipc[..]), None).map_err(failure)?.schema();
        let work = Work {
            schema,
            target_file_size: settings.target_file_size.max(0.0) as usize,
            max_row_group_rows: settings.max_row_group_rows.max(1) as usize,
            asked: Some(props),
            judge: settings.judge,
            properties: None,
            carry: VecDeque::new(),
            cursor: None,
            file: None,
            target: None,
            taken: 0,
        };
        let shared = Shared { queue: Mutex::default(), work: Mutex::new(work), aborted: AtomicBool::new(false) };
        Ok(NativeWriterStream { shared: Arc::new(shared) })
    }

    /// Queues one input (its bytes copied).
    #[napi(catch_unwind)]
    pub fn push(&self, input: StreamInput) -> Result<()> {
        let input = input_of(input)?;
        lock(&self.shared.queue)?.inputs.push_back(input);
        Ok(())
    }

    /// Queues one Arrow IPC stream given as `parts`, each at its byte offset in a stream of `total` bytes (the
    /// gaps are zeros): joined off the JavaScript thread, on libuv's pool, where the task reads the parts in
    /// place and keeps them referenced until it settles (change or transfer none of them before). Queued in
    /// order only if nothing else is pushed before the promise settles.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn push_ipc(&self, parts: Vec<Uint8Array>, offsets: Vec<f64>, total: f64) -> Result<AsyncTask<PushIpc>> {
        let valid = |n: f64| n.is_finite() && n >= 0.0;
        if parts.len() != offsets.len() || !valid(total) || !offsets.iter().all(|&o| valid(o)) {
            return Err(Error::from_reason("pushIpc: parts and offsets do not match"));
        }
        let offsets = offsets.into_iter().map(|o| o as usize).collect();
        Ok(AsyncTask::new(PushIpc { shared: self.shared.clone(), parts, offsets, total: total as usize }))
    }

    /// No input follows.
    #[napi]
    pub fn end(&self) -> Result<()> {
        lock(&self.shared.queue)?.ended = true;
        Ok(())
    }

    /// Names the path of the next file (the store's new empty temp file for it). Only between tasks.
    #[napi]
    pub fn set_target(&self, path: String) -> Result<()> {
        let mut work = self.shared.work.try_lock().map_err(|_| Error::from_reason("a writer stream task is running"))?;
        work.target = Some(path);
        Ok(())
    }

    /// Runs the stream on the addon's CPU threads (cpu_pool.rs): resolves with a `StreamRun`.
    #[napi(ts_return_type = "Promise<StreamRun>")]
    pub fn run<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
        crate::cpu_pool::spawn_cpu_task(env, RunStream { shared: self.shared.clone() })
    }

    #[napi]
    pub fn finish_file(&self) -> AsyncTask<FinishFile> {
        AsyncTask::new(FinishFile { shared: self.shared.clone() })
    }

    /// Stops the stream: a running task fails at its next batch, and what it holds is dropped; queued inputs
    /// are dropped now.
    #[napi]
    pub fn abort(&self) {
        self.shared.aborted.store(true, Ordering::Relaxed);
        if let Ok(mut queue) = self.shared.queue.lock() {
            queue.inputs.clear();
        }
        if let Ok(mut work) = self.shared.work.try_lock() {
            work.clear();
        }
    }
}
