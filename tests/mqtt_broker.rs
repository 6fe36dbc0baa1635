//! The private broker the hall tests run on: the real Mosquitto with the
//! example ACL of `systemd/mosquitto/`, refusing a wrong password and
//! keeping a board to its own topics.
use std::time::Duration;

use rumqttc::{Client, ConnectReturnCode, Event, MqttOptions, Packet, QoS};
use touchmove_testkit::mosquitto::{BrokerSetup, Mosquitto};
use touchmove_wire::mqtt::{BoardTopics, Channel};

fn broker() -> Mosquitto {
    Mosquitto::start(&BrokerSetup {
        users: vec![
            ("b1".into(), "secret-1".into()),
            ("b2".into(), "secret-2".into()),
            ("hall".into(), "secret-h".into()),
        ],
        acl: Some("systemd/mosquitto/touchmove.acl".into()),
    })
    .expect("mosquitto starts")
}

fn client(
    broker: &Mosquitto,
    id: &str,
    user: &str,
    password: &str,
) -> (Client, rumqttc::Connection) {
    let mut options = MqttOptions::new(id, "127.0.0.1", broker.port());
    options.set_credentials(user, password);
    options.set_keep_alive(Duration::from_secs(5));
    Client::new(options, 64)
}

/// Polls until the connection answers CONNACK: its return code.
fn connack(connection: &mut rumqttc::Connection) -> ConnectReturnCode {
    for event in connection.iter() {
        match event {
            Ok(Event::Incoming(Packet::ConnAck(ack))) => return ack.code,
            Ok(_) => {}
            Err(rumqttc::ConnectionError::ConnectionRefused(code)) => return code,
            Err(e) => panic!("connection failed: {e}"),
        }
    }
    panic!("the connection ended before CONNACK")
}

#[test]
fn a_wrong_password_is_refused() {
    let broker = broker();
    let (_client, mut connection) = client(&broker, "b1-bad", "b1", "wrong");
    assert_eq!(connack(&mut connection), ConnectReturnCode::NotAuthorized);
    let (_client, mut connection) = client(&broker, "b1-good", "b1", "secret-1");
    assert_eq!(connack(&mut connection), ConnectReturnCode::Success);
}

#[test]
fn a_board_writes_only_its_own_topics_and_the_hall_reads_them() {
    let broker = broker();
    let (hall, mut hall_conn) = client(&broker, "hall", "hall", "secret-h");
    assert_eq!(connack(&mut hall_conn), ConnectReturnCode::Success);
    hall.subscribe("touchmove/v1/h/+/+", QoS::AtLeastOnce)
        .unwrap();
    let (b1, mut b1_conn) = client(&broker, "b1", "b1", "secret-1");
    assert_eq!(connack(&mut b1_conn), ConnectReturnCode::Success);
    std::thread::spawn(move || for _ in b1_conn.iter() {});
    // Wait for the hall's SUBACK before the board publishes.
    for event in hall_conn.iter() {
        if let Ok(Event::Incoming(Packet::SubAck(_))) = event {
            break;
        }
    }
    let own = BoardTopics::new("h", "b1").unwrap().topic(Channel::State);
    let other = BoardTopics::new("h", "b2").unwrap().topic(Channel::State);
    b1.publish(&other, QoS::AtLeastOnce, false, "forged")
        .unwrap();
    b1.publish(&own, QoS::AtLeastOnce, false, "mine").unwrap();
    let mut got = Vec::new();
    for event in hall_conn
        .recv_timeout(Duration::from_secs(5))
        .into_iter()
        .chain(std::iter::from_fn(|| {
            hall_conn.recv_timeout(Duration::from_millis(500)).ok()
        }))
    {
        if let Ok(Event::Incoming(Packet::Publish(p))) = event {
            got.push((
                p.topic.clone(),
                String::from_utf8_lossy(&p.payload).into_owned(),
            ));
        }
    }
    assert_eq!(got, vec![(own, "mine".to_owned())], "{}", broker.log());
}

#[test]
fn the_broker_restarts_on_its_port() {
    let mut broker = broker();
    let port = broker.port();
    broker.restart().unwrap();
    assert_eq!(broker.port(), port);
    let (_c, mut connection) = client(&broker, "b2", "b2", "secret-2");
    assert_eq!(connack(&mut connection), ConnectReturnCode::Success);
}
