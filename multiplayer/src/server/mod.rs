//! A server that unmodified Godot games connect to as they would to a Godot server: Godot 4
//! (`SceneMultiplayer` over `ENetMultiplayerPeer` or `WebSocketMultiplayerPeer`) and Godot 3
//! (`MultiplayerAPI` over `NetworkedMultiplayerENet` or `WebSocketServer`).
//!
//! - [`ServerCore`]: the protocol without I/O — peers joining and leaving (`ADD_PEER` /
//!   `DEL_PEER` to the others), authentication, the node path cache both ways, RPCs resolved to
//!   node path and method name, relaying between clients, kicking, refusals with their reasons.
//! - [`ServerSchema`]: the nodes served, their `@rpc` methods and who may call them, in code or
//!   from a schema file ([`ServerSchema::parse`]).
//! - [`Server`] (feature `server`): the core on tokio, with the transports: `Server::listen_ws`
//!   (feature `server-ws`; `Server::listen_wss` with `server-wss`) and `Server::listen_enet`
//!   (feature `server-enet`; `Server::listen_enet_with` chooses what it does with ENet's range
//!   coder, `EnetCompression`), any number at once, one peer id space; each peer's send queue
//!   bounded ([`ServerConfig::max_send_queue`]).
//!
//! ```no_run
//! # #[cfg(all(feature = "server-ws", feature = "server-enet"))]
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use gdvariant_multiplayer::server::{Event, RpcSpec, Server, ServerConfig, ServerCore, ServerSchema, To};
//! let schema = ServerSchema::new().node("/root/Main", [RpcSpec::any_peer("echo"), RpcSpec::authority("echoed")]);
//! let mut server = Server::new(ServerCore::new(schema, ServerConfig::default()));
//! server.listen_ws("127.0.0.1:9080".parse()?).await?;
//! server.listen_enet("127.0.0.1:9081".parse()?).await?;
//! loop {
//!     match server.next_event().await {
//!         Event::Rpc(call) if call.method() == "echo" => {
//!             let args: Vec<_> = call.args().collect::<Result<_, _>>()?;
//!             server.rpc(To::Peer(call.from()), "Main", "echoed", &args)?;
//!         }
//!         other => println!("{other:?}"),
//!     }
//! }
//! # }
//! ```

mod client_spawn;
mod core;
#[cfg(feature = "server-enet")]
mod enet;
mod incoming;
mod path_sync;
mod replication;
mod runtime;
mod schema;
mod types;
#[cfg(feature = "server-ws")]
mod ws;
#[cfg(feature = "server-ws")]
mod ws_out;

pub use self::core::{AuthStep, Authenticator, ServerConfig, ServerCore};
#[cfg(feature = "server-enet")]
pub use enet::EnetCompression;
pub use replication::Spawned;
pub use runtime::Server;
pub use schema::{NodeSpec, RpcMode, RpcSpec, ServerSchema, SpawnerAuthority};
pub use types::{
    Action, ClientSpawn, Event, Flavor, Outgoing, PeerId, RpcCall, ServerError, SyncUpdate, To,
    TransferMode, SERVER_ID,
};
#[cfg(feature = "server-ws")]
pub use ws::{quickack, tune_tcp};
