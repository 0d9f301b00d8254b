#!/usr/bin/env python3
"""TCP relays on loopback that can be cut, for deploy/test-patroni.sh's "a node loses the database".

  tcp-relay.py CONTROL_FILE LISTEN_PORT:TARGET_PORT ...

Forwards each 127.0.0.1:LISTEN_PORT to 127.0.0.1:TARGET_PORT. While CONTROL_FILE exists the relays are
cut: every relayed connection is reset and the listening sockets are closed, so new connections are
refused (one flagserver node loses every database host while the others keep theirs). When the file is
removed they listen again. Prints "relaying" once listening. Runs until killed."""
import asyncio
import os
import socket
import sys

control = sys.argv[1]
pairs = [tuple(int(port) for port in pair.split(":")) for pair in sys.argv[2:]]
connections = set()


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (OSError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


def handler(target):
    async def relay(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            client_writer.transport.abort()
            return
        pair = (client_writer, server_writer)
        connections.add(pair)
        try:
            await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))
        finally:
            connections.discard(pair)
    return relay


async def listen():
    return [await asyncio.start_server(handler(target), "127.0.0.1", port, reuse_address=True,
                                       family=socket.AF_INET) for port, target in pairs]


async def main():
    servers = await listen()
    print("relaying", flush=True)
    while True:
        await asyncio.sleep(0.05)
        cut = os.path.exists(control)
        if cut and servers:
            for server in servers:
                server.close()
            servers = []
            for pair in list(connections):
                for writer in pair:
                    writer.transport.abort()
            connections.clear()
        elif not cut and not servers:
            servers = await listen()


asyncio.run(main())
