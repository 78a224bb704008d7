//! The connection's bytes: its stream, and a read and a write buffer that stay small. A call's
//! request (Bind, Execute, Sync) is about 60 bytes and its reply (BindComplete, a DataRow,
//! CommandComplete, ReadyForQuery) about 70, so each buffer starts at a few hundred bytes;
//! one that a larger message grew (an error's text, a notice) goes back to that size once
//! its exchange ends, so a thousand sessions never keep what one rare message needed.

use super::transport::Stream;
use bytes::BytesMut;
use postgres_protocol::message::backend::Message;
use std::io;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A buffer's size at the start and after a settle.
const START: usize = 256;
/// Above this, a settled buffer is given back and started anew.
pub(super) const KEEP: usize = 1024;

pub(super) struct Wire {
    stream: Stream,
    read: BytesMut,
    write: BytesMut,
}

impl Wire {
    pub fn new(stream: Stream) -> Wire {
        Wire { stream, read: BytesMut::with_capacity(START), write: BytesMut::with_capacity(START) }
    }

    /// Adds messages to what the next `send` writes.
    pub fn compose(&mut self, f: impl FnOnce(&mut BytesMut)) {
        f(&mut self.write);
    }

    /// Writes what was composed, in one write when the socket takes it.
    pub async fn send(&mut self) -> io::Result<()> {
        let sent = self.stream.write_all(&self.write).await;
        self.write.clear();
        sent?;
        self.stream.flush().await
    }

    /// The server's next message.
    pub async fn receive(&mut self) -> io::Result<Message> {
        loop {
            // Parsing a partial message reserves room for the rest of it.
            if let Some(message) = Message::parse(&mut self.read)? {
                return Ok(message);
            }
            if self.read.capacity() == self.read.len() {
                self.read.reserve(START);
            }
            if self.stream.read_buf(&mut self.read).await? == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed the connection"));
            }
        }
    }

    /// An exchange ended: buffers a large message grew go back to their starting size. A read
    /// buffer still holding bytes (only a server out of protocol sends past ReadyForQuery)
    /// keeps them.
    pub fn settle(&mut self) {
        self.write.clear();
        if self.write.capacity() > KEEP {
            self.write = BytesMut::with_capacity(START);
        }
        if self.read.is_empty() && self.read.capacity() > KEEP {
            self.read = BytesMut::with_capacity(START);
        }
    }

    /// Sizes of the buffers now, for the tests.
    #[cfg(test)]
    pub fn capacities(&self) -> (usize, usize) {
        (self.read.capacity(), self.write.capacity())
    }
}
