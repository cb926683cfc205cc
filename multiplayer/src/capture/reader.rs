//! [`CaptureReader`]: a capture's records through the flows, one event at a time.

use core::fmt;
use std::io::Read;

use super::config::Config;
use super::error::Error;
use super::event::Event;
use super::{file, flow};

/// Reads a capture's events, one at a time. See the [module docs](super).
pub struct CaptureReader<R: Read> {
    records: file::Records<R>,
    flows: flow::Flows,
    out: flow::Out,
    /// Records read.
    record: u64,
    finished: bool,
}

impl<R: Read> fmt::Debug for CaptureReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CaptureReader")
            .field("record", &self.record)
            .field("open_flows", &self.flows.open())
            .finish_non_exhaustive()
    }
}

impl<R: Read> CaptureReader<R> {
    /// A reader of the capture `reader` holds, with the default [`Config`]: an error if it
    /// does not start with a pcap or pcapng header.
    pub fn new(reader: R) -> Result<CaptureReader<R>, Error> {
        CaptureReader::with_config(reader, Config::new())
    }

    /// A reader with `config`.
    pub fn with_config(reader: R, config: Config) -> Result<CaptureReader<R>, Error> {
        Ok(CaptureReader {
            records: file::Records::new(reader)?,
            flows: flow::Flows::new(config),
            out: flow::Out::default(),
            record: 0,
            finished: false,
        })
    }

    /// The records (captured packets) read so far.
    pub fn records(&self) -> u64 {
        self.record
    }

    /// The flows followed now.
    pub fn open_flows(&self) -> usize {
        self.flows.open()
    }

    /// The bytes held now for TCP segments that came early and for messages not whole yet.
    pub fn held_bytes(&self) -> usize {
        self.flows.held()
    }

    /// The next event, `None` at the end of the capture (the events of one packet are borrowed
    /// from the reader until the next call).
    #[allow(clippy::should_implement_trait)]
    pub fn next_event(&mut self) -> Option<Event<'_>> {
        loop {
            if self.out.pending() {
                return self.out.take();
            }
            if self.finished {
                return None;
            }
            self.out.clear();
            match self.records.next() {
                file::Next::Record(r) => {
                    self.record += 1;
                    self.flows.record(self.record, &r, &mut self.out);
                }
                file::Next::Other => {}
                file::Next::Bad(e) => self.out.orphan(e),
                file::Next::Fatal(e) => {
                    self.out.orphan(e);
                    self.flows.finish(&mut self.out);
                    self.finished = true;
                }
                file::Next::End => {
                    self.flows.finish(&mut self.out);
                    self.finished = true;
                }
            }
        }
    }
}
