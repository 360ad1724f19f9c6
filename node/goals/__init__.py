"""ioa_p2p.node.goals: goals from any peer: team formation, the conversations of goal chats, nested teams.

- ``service.py``  :class:`Goals`: drivers, invitation policy, tasks, :meth:`Goals.launch_goal` (a
  :class:`~ioa_p2p.api.launch.LaunchRequest` in, a :class:`~ioa_p2p.api.goals.GoalResult` out)
- ``run.py``      :func:`open_goals`: the service, its routes, the adapter's description on the card
- ``types.py``    the ``[goals]`` table, the team formed, how a round ended (pure)
- ``launches.py`` the launches of this node: cancellable, each run with its event log
- ``eventlog.py`` bounded, numbered event logs read from a cursor (resumable streams)
- ``teams.py``    forming a goal's team: discover, choose, invite, open the chat (``TeamPort``)
- ``driver.py``   :class:`ChatDriver`: the trio layer that drives the conversations of one goal chat
  (``GoalsPort``: what it uses of the service)
- ``rounds.py``   one round as the driver tracks it; the typed items of the driver's queue
- ``describe.py`` a verified message's event (``start``, ``turn``, ``progress``, ``result``...) (pure)
- ``turns.py``    this node's turn under its deadline; ``conv.plan`` / ``conv.cancel`` messages
- ``tasks.py``    doing a task assigned to this node: on its adapter, or through a sub-team
- ``model_calls.py`` model calls under the caller's deadline (retries within what is left)
- ``runtime.py``  the node's agent: its adapter, tasks with deadlines and progress, the sub-team rule
- ``routes.py``   control routes ``/launch_goal``, ``/goal_events``, ``/goals``, ``/cancel_goal``
- ``reputation.py`` keeps discovery's ranking in step with each agent's record in the held histories

The events of a goal, its request and its result are the control API's (:mod:`ioa_p2p.api`).
"""

from ioa_p2p.node.goals.run import open_goals
from ioa_p2p.node.goals.service import Goals, make_brain_for
from ioa_p2p.node.goals.types import GoalsConfig

__all__ = ["Goals", "GoalsConfig", "make_brain_for", "open_goals"]
