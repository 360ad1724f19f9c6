"""ioa_p2p.node.goals: goals from any peer: team formation, the conversations of goal chats, nested teams.

- ``run.py``      :func:`open_goals`: builds the parts below, each given what it works with
  (:func:`compose_goals`), the routes, the adapter's description on the card
- ``service.py``  :class:`Goals`: the parts, and the service's calls (launch, cancel, results)
- ``members.py``  names and cards of agents as this node knows them
- ``teams.py``    forming a goal's team: discover, choose, invite, open the chat
- ``launcher.py`` launching a goal (a :class:`~ioa_p2p.api.launch.LaunchRequest` in, a
  :class:`~ioa_p2p.api.goals.GoalResult` out), following its round, cancelling it
- ``launches.py`` the launches of this node: cancellable, each run with its event log
- ``eventlog.py`` bounded, numbered event logs read from a cursor (resumable streams)
- ``drivers.py``  one chat driver per goal chat; the invitation policy
- ``driver.py``   :class:`ChatDriver`: the trio layer that drives the conversations of one goal chat
- ``rounds.py``   one round as the driver tracks it (begun from its ``conv.start``, messages routed to
  it); the typed items of the driver's queue
- ``endings.py``  how a round ended: its outcome and ``concluded`` / ``aborted`` event (pure)
- ``describe.py`` a verified message's event (``start``, ``turn``, ``progress``, ``result``...) (pure)
- ``turns.py``    this node's turn under its deadline; ``conv.plan`` / ``conv.cancel`` messages
- ``tasks.py``    doing a task assigned to this node: on its adapter, or through a sub-team
- ``runtime.py``  the node's agent: its adapter, tasks with deadlines and progress, the sub-team rule
- ``brain.py``    the brain (offline planner or LLM) from ``[goals] brain`` and ``[model]``
- ``model_calls.py`` model calls under the caller's deadline (retries within what is left)
- ``trace_peers.py`` which members read the optional ``trace`` key (a feature flag, asked before use)
- ``results.py``  the rounds this node saw and their results (``GET /goals``, ``GET /goals/result``)
- ``routes.py``   control routes ``/launch_goal``, ``/goal_events``, ``/goals``, ``/cancel_goal``
- ``reputation.py`` keeps discovery's ranking in step with each agent's record in the held histories
- ``types.py``    the ``[goals]`` table, the team formed, how a round ended (pure)

The events of a goal, its request and its result are the control API's (:mod:`ioa_p2p.api`).
"""

from ioa_p2p.node.goals.brain import make_brain_for
from ioa_p2p.node.goals.run import open_goals
from ioa_p2p.node.goals.service import Goals
from ioa_p2p.node.goals.types import GoalsConfig

__all__ = ["Goals", "GoalsConfig", "make_brain_for", "open_goals"]
