//! Point-to-point operations for pipeline-style programs: the description of one send or
//! receive ([`P2p`]); [`Communicator::p2p`](super::Communicator::p2p) runs a list of them
//! as one NCCL group (`ncclSend`/`ncclRecv` inside `ncclGroupStart`/`End`), which is what
//! lets one thread drive both ends of an exchange, or a rank send and receive at once,
//! without waiting for itself.

use crate::array::Array;

/// One send or receive of a [`Communicator::p2p`](super::Communicator::p2p) group.
///
/// ```
/// # if !cuprum_doctest::device()? { return Ok(()); }
/// use cuprum::{Array, nccl::P2p};
/// let x = Array::from_slice(&[1.0f32, 2.0], &[2])?;
/// let send = P2p::send(0, &x, 1);          // local rank 0 sends x to rank 1
/// assert_eq!(send.peer(), 1);
/// # Ok::<(), cuprum::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct P2p<'a> {
    pub(crate) local: usize,
    pub(crate) array: &'a Array,
    pub(crate) peer: usize,
    pub(crate) is_send: bool,
}

impl<'a> P2p<'a> {
    /// The local rank at index `local` (of [`ranks`](super::Communicator::ranks)) sends
    /// `array` to rank `peer`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let x = cuprum::Array::from_slice(&[1u8], &[1])?;
    /// assert!(cuprum::nccl::P2p::send(0, &x, 3).is_send());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn send(local: usize, array: &'a Array, peer: usize) -> P2p<'a> {
        P2p {
            local,
            array,
            peer,
            is_send: true,
        }
    }

    /// The local rank at index `local` receives into `array` from rank `peer`.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let x = cuprum::Array::from_slice(&[1u8], &[1])?;
    /// assert!(!cuprum::nccl::P2p::recv(0, &x, 2).is_send());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn recv(local: usize, array: &'a Array, peer: usize) -> P2p<'a> {
        P2p {
            local,
            array,
            peer,
            is_send: false,
        }
    }

    /// Whether it sends.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let x = cuprum::Array::from_slice(&[1u8], &[1])?;
    /// assert!(cuprum::nccl::P2p::send(0, &x, 0).is_send());
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn is_send(&self) -> bool {
        self.is_send
    }

    /// The other rank.
    ///
    /// ```
    /// # if !cuprum_doctest::device()? { return Ok(()); }
    /// let x = cuprum::Array::from_slice(&[1u8], &[1])?;
    /// assert_eq!(cuprum::nccl::P2p::recv(0, &x, 5).peer(), 5);
    /// # Ok::<(), cuprum::Error>(())
    /// ```
    pub fn peer(&self) -> usize {
        self.peer
    }
}
