//! A response body as hyper sends it: bytes made before the response, or pieces a writer
//! makes while it is sent ([`Pieces`], run on the blocking thread that holds the store). The
//! pieces pass through a channel of a few chunks, so a download never sits whole in memory and
//! a client that reads slowly slows the writer down.

use hyper::body::{Body, Bytes, Frame, SizeHint};
use std::io::{self, Write};
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::sync::mpsc;

/// The most a writer gives the connection at once.
const CHUNK: usize = 64 * 1024;
/// Chunks made but not yet sent: with hyper's own buffer, a streamed response holds at most
/// about this many chunks and one more in memory.
const CHUNKS_AHEAD: usize = 4;

pub(crate) struct Outgoing(Source);

enum Source {
    /// `None` once sent (or for no body at all).
    Whole(Option<Bytes>),
    Streamed(mpsc::Receiver<Piece>),
}

enum Piece {
    Bytes(Bytes),
    /// The writer finished: without this, a channel that closes is a body cut short.
    End,
}

impl Outgoing {
    pub(crate) fn whole(bytes: Vec<u8>) -> Outgoing {
        Outgoing(Source::Whole(Some(Bytes::from(bytes)).filter(|b| !b.is_empty())))
    }

    /// No body, and no length said (a HEAD request's answer to a streamed body).
    pub(crate) fn none() -> Outgoing {
        Outgoing(Source::Whole(None))
    }

    /// A body that `Pieces` writes while it is sent.
    pub(crate) fn streamed() -> (Pieces, Outgoing) {
        let (send, receive) = mpsc::channel(CHUNKS_AHEAD);
        (Pieces { buffer: Vec::with_capacity(CHUNK), send }, Outgoing(Source::Streamed(receive)))
    }
}

impl Body for Outgoing {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<io::Result<Frame<Bytes>>>> {
        let piece = match &mut self.0 {
            Source::Whole(bytes) => return Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Source::Streamed(pieces) => ready!(pieces.poll_recv(cx)),
        };
        Poll::Ready(match piece {
            Some(Piece::Bytes(b)) => Some(Ok(Frame::data(b))),
            Some(Piece::End) => {
                self.0 = Source::Whole(None);
                None
            }
            // hyper ends the connection without ending the body, so the client sees a cut
            // download, never a whole one.
            None => Some(Err(io::Error::other("the body's writer stopped before its end"))),
        })
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.0, Source::Whole(None))
    }

    fn size_hint(&self) -> SizeHint {
        match &self.0 {
            Source::Whole(b) => SizeHint::with_exact(b.as_ref().map_or(0, |b| b.len() as u64)),
            Source::Streamed(_) => SizeHint::default(),
        }
    }
}

/// Writes a streamed body: what it is given goes to the client in chunks of [`CHUNK`] bytes,
/// each waiting for room in the channel. Used on a blocking thread only.
pub(crate) struct Pieces {
    buffer: Vec<u8>,
    send: mpsc::Sender<Piece>,
}

impl Pieces {
    /// Sends what is left and the end of the body.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        self.flush()?;
        self.send.blocking_send(Piece::End).map_err(|_| client_gone())
    }
}

impl Write for Pieces {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let n = data.len().min(CHUNK - self.buffer.len());
        self.buffer.extend_from_slice(&data[..n]);
        if self.buffer.len() == CHUNK {
            self.flush()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.buffer, Vec::with_capacity(CHUNK));
        self.send.blocking_send(Piece::Bytes(Bytes::from(chunk))).map_err(|_| client_gone())
    }
}

/// The connection ended (the client left, or read nothing for the write deadline), and with it
/// the body.
fn client_gone() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the client is gone")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Waker;

    /// Every frame the body has now, and how it ended: `Ok` whole, `Err` cut.
    fn drain(body: &mut Outgoing) -> (Vec<usize>, Result<(), String>) {
        let mut sizes = Vec::new();
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            match Pin::new(&mut *body).poll_frame(&mut cx) {
                Poll::Ready(Some(Ok(frame))) => sizes.push(frame.into_data().map_or(0, |d| d.len())),
                Poll::Ready(Some(Err(e))) => return (sizes, Err(e.to_string())),
                Poll::Ready(None) => return (sizes, Ok(())),
                Poll::Pending => panic!("nothing more is coming"),
            }
        }
    }

    #[test]
    fn a_written_body_arrives_in_chunks_and_ends_whole() {
        let (mut pieces, mut body) = Outgoing::streamed();
        let writer = std::thread::spawn(move || {
            pieces.write_all(&vec![7u8; CHUNK * 2 + 10])?;
            pieces.finish()
        });
        let mut cx = Context::from_waker(Waker::noop());
        let mut sizes = Vec::new();
        // The writer waits whenever the channel is full, so frames are taken as they come.
        loop {
            match Pin::new(&mut body).poll_frame(&mut cx) {
                Poll::Ready(Some(frame)) => sizes.push(frame.unwrap().into_data().map_or(0, |d| d.len())),
                Poll::Ready(None) => break,
                Poll::Pending => std::thread::yield_now(),
            }
        }
        writer.join().unwrap().unwrap();
        assert_eq!(sizes, [CHUNK, CHUNK, 10]);
        assert!(body.is_end_stream());
    }

    #[test]
    fn a_writer_that_stops_early_cuts_the_body() {
        let (mut pieces, mut body) = Outgoing::streamed();
        pieces.write_all(b"half a download").unwrap();
        pieces.flush().unwrap();
        drop(pieces);
        let (sizes, end) = drain(&mut body);
        assert_eq!(sizes, [15]);
        assert!(end.is_err(), "a cut body is an error, never a whole one");
    }

    #[test]
    fn a_writer_whose_client_left_gets_an_error() {
        let (mut pieces, body) = Outgoing::streamed();
        drop(body);
        let e = pieces.write_all(&vec![0u8; CHUNK]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn a_whole_body_says_its_length() {
        let mut body = Outgoing::whole(b"page".to_vec());
        assert_eq!(body.size_hint().exact(), Some(4));
        assert_eq!(drain(&mut body), (vec![4], Ok(())));
        assert!(Outgoing::whole(Vec::new()).is_end_stream());
    }
}
