"""Learned policies: a Q(s, a) network trained by self-play (Deep Monte-Carlo).

* :mod:`motley.learn.qnet` -- new networks with random weights (the network itself, its NumPy forward pass and its
  file format: :mod:`motley.bots.qnet`, what playing needs; no PyTorch);
* :mod:`motley.learn.selfplay` -- deals played by the network and the game's heuristic, recorded for training;
* :mod:`motley.learn.dmc` -- the trainer (PyTorch, the ``train`` extra): actors in processes, a learner, checkpoints
  and the learning curve (``motley train``).
"""
